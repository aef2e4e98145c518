#include "mount/node_cache.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "hash/sha256.h"
#include "testing/temp_dir.h"

namespace sealvol {
namespace {

using testing::RandomBytes;
using testing::TempDir;

std::string PathOf(const TempDir& dir, const Digest& d) {
  return dir.path() + "/chunks/" + d.Hex().substr(0, 2) + "/" + d.Hex();
}

TEST(NodeCacheTest, StoresAndLoadsVerifiedBytes) {
  TempDir dir;
  MountStats stats;
  auto cache = NodeCache::Open(dir.path(), 1 << 30, &stats);
  ASSERT_TRUE(cache.has_value()) << cache.error().ToString();
  std::string data = RandomBytes(1, 5000);
  Digest d = Sha256::Of(data);
  EXPECT_FALSE((*cache)->Load(d, data.size()).has_value());
  (*cache)->Store(d, data);
  EXPECT_TRUE((*cache)->Contains(d));
  auto back = (*cache)->Load(d, data.size());
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, data);
  EXPECT_EQ(stats.disk_stored.load(), 1u);
}

TEST(NodeCacheTest, DropsAFileThatDoesNotMatchItsDigest) {
  TempDir dir;
  MountStats stats;
  auto cache = NodeCache::Open(dir.path(), 1 << 30, &stats);
  ASSERT_TRUE(cache.has_value());
  std::string data = RandomBytes(2, 4096);
  Digest d = Sha256::Of(data);
  (*cache)->Store(d, data);
  // What a crash or a bad disk leaves: same length, other bytes; then a
  // truncated file.
  std::string bad = data;
  bad[100] ^= 1;
  std::ofstream(PathOf(dir, d), std::ios::binary) << bad;
  EXPECT_FALSE((*cache)->Load(d, data.size()).has_value());
  EXPECT_FALSE(std::filesystem::exists(PathOf(dir, d)));
  (*cache)->Store(d, data);
  std::ofstream(PathOf(dir, d), std::ios::binary) << data.substr(0, 10);
  EXPECT_FALSE((*cache)->Load(d, std::nullopt).has_value());
  EXPECT_EQ(stats.disk_dropped_corrupt.load(), 2u);
}

TEST(NodeCacheTest, TrimEvictsTheLeastRecentlyUsedDownToNinetyPercent) {
  TempDir dir;
  MountStats stats;
  auto cache = NodeCache::Open(dir.path(), 10000, &stats);
  ASSERT_TRUE(cache.has_value());
  std::vector<Digest> ds;
  for (int i = 0; i < 10; ++i) {
    std::string data = RandomBytes(100 + i, 1000);
    ds.push_back(Sha256::Of(data));
    (*cache)->Store(ds.back(), data);
    // Older files first: mtimes one minute apart.
    struct timespec t[2] = {{1000000 + i * 60, 0}, {1000000 + i * 60, 0}};
    utimensat(AT_FDCWD, PathOf(dir, ds.back()).c_str(), t, 0);
  }
  std::string extra = RandomBytes(999, 1000);
  (*cache)->Store(Sha256::Of(extra), extra);  // 11000 > 10000
  (*cache)->Trim();
  EXPECT_LE((*cache)->usage(), 9000u);
  EXPECT_FALSE((*cache)->Contains(ds[0]));
  EXPECT_FALSE((*cache)->Contains(ds[1]));
  EXPECT_TRUE((*cache)->Contains(ds[9]));
  EXPECT_TRUE((*cache)->Contains(Sha256::Of(extra)));
  EXPECT_GE(stats.disk_evicted.load(), 2u);
}

TEST(NodeCacheTest, SecondInstanceSeesTheFirstOnesFiles) {
  TempDir dir;
  std::string data = RandomBytes(3, 2048);
  Digest d = Sha256::Of(data);
  {
    auto a = NodeCache::Open(dir.path(), 1 << 20, nullptr);
    ASSERT_TRUE(a.has_value());
    (*a)->Store(d, data);
  }
  auto b = NodeCache::Open(dir.path(), 1 << 20, nullptr);
  ASSERT_TRUE(b.has_value());
  auto back = (*b)->Load(d, data.size());
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, data);
}

}  // namespace
}  // namespace sealvol
