#include "hash/sha256.h"

#include <openssl/evp.h>

#include <cstdlib>

namespace sealvol {
namespace {

EVP_MD_CTX* Ctx(void* p) { return static_cast<EVP_MD_CTX*>(p); }

void Init(EVP_MD_CTX* ctx) {
  // Failure here means OpenSSL itself is broken; nothing sane can follow.
  if (EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr) != 1) std::abort();
}

}  // namespace

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  if (ctx_ == nullptr) std::abort();
  Init(Ctx(ctx_));
}

Sha256::~Sha256() { EVP_MD_CTX_free(Ctx(ctx_)); }

void Sha256::Update(const void* data, size_t len) {
  if (len != 0) EVP_DigestUpdate(Ctx(ctx_), data, len);
}

void Sha256::Update(std::string_view data) { Update(data.data(), data.size()); }

Digest Sha256::Finish() {
  uint8_t out[EVP_MAX_MD_SIZE];
  unsigned len = 0;
  EVP_DigestFinal_ex(Ctx(ctx_), out, &len);
  Init(Ctx(ctx_));
  return Digest::FromBytes(out);
}

Digest Sha256::Of(std::string_view data) {
  thread_local Sha256 hasher;
  hasher.Update(data);
  return hasher.Finish();
}

}  // namespace sealvol
