#include "hash/rsa_sign.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

namespace sealvol {
namespace {

// A fresh key pair as PEM (private PKCS#8, public SPKI).
std::pair<std::string, std::string> NewKey() {
  EVP_PKEY* key = EVP_RSA_gen(2048);
  EXPECT_NE(key, nullptr);
  auto pem = [](auto write) {
    BIO* b = BIO_new(BIO_s_mem());
    write(b);
    char* p = nullptr;
    long n = BIO_get_mem_data(b, &p);
    std::string out(p, n);
    BIO_free(b);
    return out;
  };
  std::string priv = pem([&](BIO* b) {
    PEM_write_bio_PrivateKey(b, key, nullptr, nullptr, 0, nullptr, nullptr);
  });
  std::string pub = pem([&](BIO* b) { PEM_write_bio_PUBKEY(b, key); });
  EVP_PKEY_free(key);
  return {priv, pub};
}

TEST(RsaSignTest, SignsWhatVerifiesAndNothingElse) {
  auto [priv, pub] = NewKey();
  auto sig = RsaSha256Sign(priv, "header.claims");
  ASSERT_TRUE(sig.has_value()) << sig.error().ToString();
  EXPECT_EQ(sig->size(), 256u);
  // PKCS#1 v1.5 is deterministic.
  EXPECT_EQ(*RsaSha256Sign(priv, "header.claims"), *sig);
  EXPECT_TRUE(RsaSha256Verify(pub, "header.claims", *sig));
  EXPECT_FALSE(RsaSha256Verify(pub, "header.claimz", *sig));
  std::string bad = *sig;
  bad[10] ^= 1;
  EXPECT_FALSE(RsaSha256Verify(pub, "header.claims", bad));
  auto [other_priv, other_pub] = NewKey();
  EXPECT_FALSE(RsaSha256Verify(other_pub, "header.claims", *sig));
}

TEST(RsaSignTest, BadKeysAreRefusedWithoutQuotingThem) {
  auto r = RsaSha256Sign(
      "-----BEGIN PRIVATE KEY-----\nc2VjcmV0\n"
      "-----END PRIVATE KEY-----\n",
      "x");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message().find("c2VjcmV0"), std::string::npos);
  EXPECT_FALSE(RsaSha256Sign("", "x").has_value());
  EXPECT_FALSE(RsaSha256Verify("not a key", "x", "sig"));
}

}  // namespace
}  // namespace sealvol
