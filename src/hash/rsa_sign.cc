#include "hash/rsa_sign.h"

#include <openssl/evp.h>
#include <openssl/pem.h>

#include <memory>

namespace sealvol {
namespace {

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct KeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct CtxFree {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};

std::unique_ptr<BIO, BioFree> Bio(std::string_view pem) {
  return std::unique_ptr<BIO, BioFree>(
      BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

}  // namespace

Result<std::string> RsaSha256Sign(std::string_view pem_private_key,
                                  std::string_view data) {
  auto bio = Bio(pem_private_key);
  std::unique_ptr<EVP_PKEY, KeyFree> key(
      bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr)
          : nullptr);
  if (!key || EVP_PKEY_base_id(key.get()) != EVP_PKEY_RSA) {
    return InvalidArgument("the private key is not a PEM RSA key");
  }
  std::unique_ptr<EVP_MD_CTX, CtxFree> ctx(EVP_MD_CTX_new());
  size_t len = 0;
  if (!ctx ||
      EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr,
                         key.get()) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &len,
                     reinterpret_cast<const unsigned char*>(data.data()),
                     data.size()) != 1) {
    return InvalidArgument("cannot sign with the private key");
  }
  std::string sig(len, '\0');
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()),
                     &len, reinterpret_cast<const unsigned char*>(data.data()),
                     data.size()) != 1) {
    return InvalidArgument("cannot sign with the private key");
  }
  sig.resize(len);
  return sig;
}

bool RsaSha256Verify(std::string_view pem_public_key, std::string_view data,
                     std::string_view signature) {
  auto bio = Bio(pem_public_key);
  std::unique_ptr<EVP_PKEY, KeyFree> key(
      bio ? PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr)
          : nullptr);
  if (!key) return false;
  std::unique_ptr<EVP_MD_CTX, CtxFree> ctx(EVP_MD_CTX_new());
  return ctx &&
         EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha256(), nullptr,
                              key.get()) == 1 &&
         EVP_DigestVerify(
             ctx.get(),
             reinterpret_cast<const unsigned char*>(signature.data()),
             signature.size(),
             reinterpret_cast<const unsigned char*>(data.data()),
             data.size()) == 1;
}

}  // namespace sealvol
