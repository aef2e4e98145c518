#include "hash/digest.h"

#include <gtest/gtest.h>

namespace sealvol {
namespace {

const std::string kHex =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

TEST(DigestTest, ParsesTheOneCanonicalForm) {
  auto d = Digest::Parse("sha256:" + kHex);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->ToString(), "sha256:" + kHex);
  EXPECT_EQ(d->Hex(), kHex);
  EXPECT_EQ(d->Short(), kHex.substr(0, 12));
  EXPECT_EQ(*Digest::ParseHex(kHex), *d);
}

TEST(DigestTest, RejectsEverythingElse) {
  std::string upper = kHex;
  upper[0] = 'E';
  for (const std::string& bad :
       {std::string(""), kHex, "sha256:" + upper, "sha256:" + kHex + "0",
        "sha256:" + kHex.substr(1), "SHA256:" + kHex, "sha512:" + kHex,
        " sha256:" + kHex, "sha256:" + kHex + "\n", "sha256: " + kHex,
        "sha256:" + kHex.substr(0, 63) + "g",
        "sha256:../../../../etc/passwd" + std::string(35, 'a'),
        std::string("sha256:") + std::string(63, 'a') + '\0'}) {
    EXPECT_FALSE(Digest::Parse(bad).has_value()) << bad;
  }
}

TEST(DigestTest, OrdersAndHashes) {
  auto a = *Digest::ParseHex(std::string(64, '0'));
  auto b = *Digest::ParseHex(std::string(63, '0') + "1");
  EXPECT_LT(a, b);
  EXPECT_NE(a, b);
  EXPECT_NE(DigestHash()(a), DigestHash()(*Digest::ParseHex(kHex)));
}

}  // namespace
}  // namespace sealvol
