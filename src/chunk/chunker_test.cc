#include "chunk/chunker.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "hash/sha256.h"
#include "testing/temp_dir.h"

namespace sealvol {
namespace {

// The seeded input of the golden vectors: SplitMix64 words, little-endian.
std::string SeededBytes(uint64_t seed, size_t n) {
  return testing::RandomBytes(seed, n);
}

// Feeds `data` in pieces of the sizes `next_piece` returns; returns the
// chunk lengths.
template <typename PieceFn>
std::vector<uint64_t> Cut(const std::string& data, PieceFn next_piece) {
  Chunker c;
  std::vector<uint64_t> lengths;
  uint64_t current = 0;
  size_t pos = 0;
  while (pos < data.size()) {
    size_t piece = std::min(next_piece(), data.size() - pos);
    size_t off = 0;
    while (off < piece) {
      bool cut;
      size_t n =
          c.Next(reinterpret_cast<const uint8_t*>(data.data()) + pos + off,
                 piece - off, &cut);
      off += n;
      current += n;
      if (cut) {
        lengths.push_back(current);
        current = 0;
      }
    }
    pos += piece;
  }
  if (current > 0) lengths.push_back(current);
  return lengths;
}

std::vector<uint64_t> CutWhole(const std::string& data) {
  return Cut(data, [&] { return data.size(); });
}

std::string GoldenPath() {
  const char* dir = std::getenv("SEALVOL_TESTDATA");
  return std::string(dir ? dir : "tests/data") + "/chunker_golden.txt";
}

// "<name> <length> <sha256>" per chunk, for the two golden inputs.
std::string GoldenText() {
  std::ostringstream out;
  struct Input {
    const char* name;
    std::string data;
  };
  Input inputs[] = {{"seed42", SeededBytes(42, 24 << 20)},
                    {"zeros", std::string(10 << 20, '\0')}};
  for (const auto& in : inputs) {
    size_t off = 0;
    for (uint64_t len : CutWhole(in.data)) {
      out << in.name << " " << len << " "
          << Sha256::Of(std::string_view(in.data).substr(off, len)).Hex()
          << "\n";
      off += len;
    }
  }
  return out.str();
}

TEST(ChunkerTest, GearTableIsPinned) {
  // The table is part of the format; these values must never change.
  const auto& g = GearTable();
  uint64_t x = 0;
  for (uint64_t v : g) x ^= v;
  EXPECT_EQ(g[0], 0x53014ccb6d557e2dULL) << std::hex << g[0];
  EXPECT_EQ(x, 0x5ddb1605633db58dULL) << std::hex << x;
}

TEST(ChunkerTest, MatchesGoldenVectors) {
  std::string want;
  {
    std::ifstream f(GoldenPath());
    ASSERT_TRUE(f.good()) << "missing " << GoldenPath();
    std::stringstream ss;
    ss << f.rdbuf();
    want = ss.str();
  }
  if (std::getenv("SEALVOL_REGENERATE_GOLDEN")) {
    std::ofstream(GoldenPath()) << GoldenText();
    GTEST_SKIP() << "regenerated " << GoldenPath();
  }
  EXPECT_EQ(GoldenText(), want)
      << "chunk boundaries changed: that is a format change";
}

TEST(ChunkerTest, BoundariesDoNotDependOnHowInputIsFed) {
  std::string data = SeededBytes(7, 12 << 20);
  auto whole = CutWhole(data);
  ASSERT_GT(whole.size(), 4u);
  auto bytewise = Cut(data, [] { return size_t{1}; });
  EXPECT_EQ(bytewise, whole);
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 5; ++trial) {
    std::uniform_int_distribution<size_t> dist(1, 3 << 20);
    EXPECT_EQ(Cut(data, [&] { return dist(rng); }), whole) << "trial " << trial;
  }
  EXPECT_EQ(Cut(data, [] { return size_t{4096}; }), whole);
}

TEST(ChunkerTest, ChunksRespectMinAndMaxAndAverageNearOneMiB) {
  std::string data = SeededBytes(99, 64 << 20);
  auto lengths = CutWhole(data);
  uint64_t total = 0;
  for (size_t i = 0; i < lengths.size(); ++i) {
    total += lengths[i];
    EXPECT_LE(lengths[i], kChunkParamsV1.max_size);
    if (i + 1 < lengths.size()) {
      EXPECT_GT(lengths[i], kChunkParamsV1.min_size);
    }
  }
  EXPECT_EQ(total, data.size());
  double avg = static_cast<double>(total) / lengths.size();
  EXPECT_GT(avg, 0.6 * kChunkParamsV1.avg_size);
  EXPECT_LT(avg, 1.8 * kChunkParamsV1.avg_size);
}

TEST(ChunkerTest, LocalEditMovesOnlyNearbyBoundaries) {
  std::string a = SeededBytes(5, 32 << 20);
  std::string b = a;
  b.insert(16 << 20, SeededBytes(6, 1000));  // insert 1000 bytes mid-stream
  auto ca = CutWhole(a), cb = CutWhole(b);
  // Chunks are identical before the edit and, shifted, after it.
  size_t same_prefix = 0;
  while (same_prefix < ca.size() && ca[same_prefix] == cb[same_prefix])
    ++same_prefix;
  size_t same_suffix = 0;
  while (same_suffix < ca.size() &&
         ca[ca.size() - 1 - same_suffix] == cb[cb.size() - 1 - same_suffix]) {
    ++same_suffix;
  }
  EXPECT_GE(same_prefix + same_suffix + 3, ca.size());
}

TEST(ChunkerTest, EmptyAndTinyInputs) {
  EXPECT_TRUE(CutWhole("").empty());
  EXPECT_EQ(CutWhole("abc"), std::vector<uint64_t>{3});
}

}  // namespace
}  // namespace sealvol
