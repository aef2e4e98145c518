#include "mount/chunk_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "hash/sha256.h"

namespace sealvol {
namespace {

ChunkPtr Bytes(size_t n, char c) {
  return std::make_shared<const std::string>(n, c);
}

Digest D(int i) { return Sha256::Of(std::to_string(i)); }

TEST(ChunkCacheTest, EvictsLeastRecentlyUsedPastTheBudget) {
  ChunkCache cache(300);
  for (int i = 0; i < 3; ++i) {
    auto r = cache.GetOrFetch(
        D(i), [&] { return Result<ChunkPtr>(Bytes(100, 'a')); });
    ASSERT_TRUE(r.has_value());
  }
  ASSERT_NE(cache.Lookup(D(0)), nullptr);  // 0 becomes most recent
  auto r =
      cache.GetOrFetch(D(3), [&] { return Result<ChunkPtr>(Bytes(100, 'b')); });
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(cache.bytes(), 300u);
  EXPECT_NE(cache.Lookup(D(0)), nullptr);
  EXPECT_EQ(cache.Lookup(D(1)), nullptr);  // the coldest went
  EXPECT_NE(cache.Lookup(D(2)), nullptr);
  EXPECT_NE(cache.Lookup(D(3)), nullptr);
}

TEST(ChunkCacheTest, KeepsAChunkLargerThanTheBudgetUntilTheNext) {
  ChunkCache cache(10);
  auto r =
      cache.GetOrFetch(D(1), [&] { return Result<ChunkPtr>(Bytes(50, 'x')); });
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ((*r)->size(), 50u);
  EXPECT_NE(cache.Lookup(D(1)), nullptr);
}

TEST(ChunkCacheTest, ConcurrentReadersShareOneFetch) {
  ChunkCache cache(1 << 20);
  std::atomic<int> fetches{0};
  std::atomic<bool> release{false};
  std::vector<std::thread> readers;
  std::atomic<int> ok{0};
  for (int t = 0; t < 8; ++t) {
    readers.emplace_back([&] {
      auto r = cache.GetOrFetch(D(7), [&]() -> Result<ChunkPtr> {
        fetches.fetch_add(1);
        while (!release.load()) std::this_thread::yield();
        return Bytes(10, 'z');
      });
      if (r && **r == std::string(10, 'z')) ok.fetch_add(1);
    });
  }
  // Let every reader arrive while the one fetch is held open.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  release.store(true);
  for (auto& t : readers) t.join();
  EXPECT_EQ(fetches.load(), 1);
  EXPECT_EQ(ok.load(), 8);
}

TEST(ChunkCacheTest, AFailureIsNotRemembered) {
  ChunkCache cache(1 << 20);
  auto bad =
      cache.GetOrFetch(D(1), [] { return Result<ChunkPtr>(NotFound("gone")); });
  EXPECT_FALSE(bad.has_value());
  EXPECT_FALSE(cache.PresentOrPending(D(1)));
  bool fetched = false;
  auto good = cache.GetOrFetch(
      D(1), [] { return Result<ChunkPtr>(Bytes(3, 'k')); }, &fetched);
  ASSERT_TRUE(good.has_value());
  EXPECT_TRUE(fetched);
  EXPECT_TRUE(cache.PresentOrPending(D(1)));
}

}  // namespace
}  // namespace sealvol
