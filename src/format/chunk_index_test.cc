#include "format/chunk_index.h"

#include <gtest/gtest.h>

#include "hash/sha256.h"

namespace sealvol {
namespace {

constexpr uint32_t kMax = 4 << 20;

ChunkIndex Sample() {
  return ChunkIndex{{{Sha256::Of("a"), 300000}, {Sha256::Of("b"), 12}}};
}

TEST(ChunkIndexTest, RoundTripsWithTheSpecifiedLayout) {
  std::string bytes = SerializeChunkIndex(Sample());
  ASSERT_EQ(bytes.size(), 16u + 2 * 36u);
  EXPECT_EQ(bytes.substr(0, 4), "SVIX");
  EXPECT_EQ(bytes[4], 1);  // u32 version 1, little-endian
  EXPECT_EQ(bytes[8], 2);  // u64 count 2
  // First length 300000 = 0x000493e0, little-endian after the 32-byte hash.
  EXPECT_EQ(static_cast<uint8_t>(bytes[16 + 32]), 0xe0);
  EXPECT_EQ(static_cast<uint8_t>(bytes[16 + 33]), 0x93);
  auto back = ParseChunkIndex(bytes, kMax, 100);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->chunks, Sample().chunks);
  EXPECT_EQ(back->TotalSize(), 300012u);
}

TEST(ChunkIndexTest, RejectsMalformedIndexes) {
  std::string good = SerializeChunkIndex(Sample());
  auto with = [&](size_t pos, char c) {
    std::string s = good;
    s[pos] = c;
    return s;
  };
  ChunkIndex one{{{Sha256::Of("a"), 10}}};
  ChunkIndex zero_len{{{Sha256::Of("a"), 10}, {Sha256::Of("b"), 0}}};
  ChunkIndex too_long{{{Sha256::Of("a"), 10}, {Sha256::Of("b"), kMax + 1}}};
  for (const std::string& bad :
       {std::string(), good.substr(0, 15), with(0, 'X'), with(4, 2),
        with(8, 3) /* count says 3, bytes hold 2 */, good + "x",
        good.substr(0, good.size() - 1), with(15, 1) /* absurd count */,
        SerializeChunkIndex(one), SerializeChunkIndex(zero_len),
        SerializeChunkIndex(too_long)}) {
    auto r = ParseChunkIndex(bad, kMax, 1000);
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().code(), StatusCode::kCorruption);
  }
  EXPECT_FALSE(ParseChunkIndex(good, kMax, 1).has_value());  // over max_count
}

}  // namespace
}  // namespace sealvol
