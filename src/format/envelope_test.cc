#include "format/envelope.h"

#include <gtest/gtest.h>

#include <random>

#include "hash/sha256.h"

namespace sealvol {
namespace {

std::string Random(size_t n) {
  std::mt19937_64 rng(3);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng());
  return s;
}

TEST(EnvelopeTest, RoundTripsEveryPolicy) {
  for (auto policy :
       {CompressPolicy::kNone, CompressPolicy::kZstd, CompressPolicy::kAuto}) {
    for (const std::string& plain : {std::string(), std::string("x"),
                                     std::string(100000, 'a'), Random(5000)}) {
      std::string env = EncodeEnvelope(plain, policy);
      auto back = DecodeEnvelope(env, plain.size());
      ASSERT_TRUE(back.has_value()) << back.error().ToString();
      EXPECT_EQ(*back, plain);
    }
  }
}

TEST(EnvelopeTest, AutoKeepsZstdOnlyWhenItSaves) {
  EXPECT_EQ(EncodeEnvelope(std::string(100000, 'a'), CompressPolicy::kAuto)[0],
            static_cast<char>(Codec::kZstd));
  EXPECT_EQ(EncodeEnvelope(Random(100000), CompressPolicy::kAuto)[0],
            static_cast<char>(Codec::kRaw));
  EXPECT_EQ(EncodeEnvelope(std::string(100000, 'a'), CompressPolicy::kNone)[0],
            static_cast<char>(Codec::kRaw));
}

TEST(EnvelopeTest, DecodingIsCappedAtTheExpectedSize) {
  std::string plain(1 << 20, 'z');
  std::string zstd = EncodeEnvelope(plain, CompressPolicy::kZstd);
  auto r = DecodeEnvelope(zstd, plain.size() - 1);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), StatusCode::kCorruption);
  std::string raw = EncodeEnvelope(plain, CompressPolicy::kNone);
  EXPECT_FALSE(DecodeEnvelope(raw, plain.size() - 1).has_value());
}

TEST(EnvelopeTest, BadEnvelopesAreCorruption) {
  std::string zstd =
      EncodeEnvelope(std::string(10000, 'q'), CompressPolicy::kZstd);
  std::string truncated = zstd.substr(0, zstd.size() - 3);
  std::string trailing = zstd + "junk";
  std::string flipped = zstd;
  flipped[flipped.size() / 2] ^= 0x55;
  for (const std::string& bad :
       {std::string(), std::string("\x07payload"), truncated, trailing,
        std::string("\x01not zstd at all")}) {
    auto r = DecodeEnvelope(bad, 1 << 20);
    ASSERT_FALSE(r.has_value()) << bad.size();
    EXPECT_EQ(r.error().code(), StatusCode::kCorruption);
  }
  // A flipped byte either fails to decode or fails the hash check.
  Digest d = Sha256::Of(std::string(10000, 'q'));
  EXPECT_FALSE(DecodeVerified(flipped, d, 10000, 10000).has_value());
}

TEST(EnvelopeTest, DecodeVerifiedChecksDigestAndSize) {
  std::string plain = "model bytes";
  Digest d = Sha256::Of(plain);
  std::string env = EncodeEnvelope(plain, CompressPolicy::kNone);
  EXPECT_TRUE(DecodeVerified(env, d, plain.size(), 100).has_value());
  EXPECT_TRUE(DecodeVerified(env, d, kUnknownSize, 100).has_value());
  auto wrong_digest =
      DecodeVerified(env, Sha256::Of("other"), plain.size(), 100);
  ASSERT_FALSE(wrong_digest.has_value());
  EXPECT_NE(wrong_digest.error().message().find("does not match"),
            std::string::npos);
  EXPECT_FALSE(DecodeVerified(env, d, plain.size() + 1, 100).has_value());
}

TEST(EnvelopeTest, ParsesPolicies) {
  EXPECT_EQ(*ParseCompressPolicy("auto"), CompressPolicy::kAuto);
  EXPECT_EQ(*ParseCompressPolicy("zstd"), CompressPolicy::kZstd);
  EXPECT_EQ(*ParseCompressPolicy("none"), CompressPolicy::kNone);
  EXPECT_FALSE(ParseCompressPolicy("lz4").has_value());
}

}  // namespace
}  // namespace sealvol
