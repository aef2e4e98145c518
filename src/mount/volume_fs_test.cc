#include "mount/volume_fs.h"

#include <gtest/gtest.h>

#include <random>

#include "publish/publisher.h"
#include "store/blob_reader.h"
#include "store/fault_injecting_blob_store.h"
#include "store/memory_blob_store.h"
#include "testing/temp_dir.h"

namespace sealvol {
namespace {

using testing::RandomBytes;
using testing::TempDir;

std::string Flatten(const ReadReply& r) {
  std::string out;
  for (const iovec& v : r.iov)
    out.append(static_cast<char*>(v.iov_base), v.iov_len);
  return out;
}

class VolumeFsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    big_ = RandomBytes(5, 9 << 20);  // several chunks
    src_.Write("model.bin", big_);
    src_.Write("small.txt", "hello");
    src_.Write("empty", "");
    auto v = Publisher(&store_, PublishOptions{}).Build(src_.path());
    ASSERT_TRUE(v.has_value()) << v.error().ToString();
    manifest_ = v->manifest;
  }

  std::unique_ptr<VolumeFs> MakeFs(BlobStore* store, Prefetch prefetch,
                                   NodeCache* disk = nullptr,
                                   FetchOptions fetch = {}) {
    source_ =
        std::make_unique<ChunkSource>(store, &memory_, disk, &stats_, fetch);
    auto tree = VolumeTree::Build(manifest_);
    EXPECT_TRUE(tree.has_value());
    FsOptions o;
    o.prefetch = prefetch;
    return std::make_unique<VolumeFs>(std::move(*tree), source_.get(), o);
  }

  uint64_t InoOf(VolumeFs& fs, const std::string& name) {
    auto st = fs.Lookup(kRootIno, name);
    EXPECT_TRUE(st.has_value());
    return st ? st->st_ino : 0;
  }

  TempDir src_;
  std::string big_;
  MemoryBlobStore store_;
  Manifest manifest_;
  MountStats stats_;
  ChunkCache memory_{64 << 20};
  std::unique_ptr<ChunkSource> source_;
};

TEST_F(VolumeFsTest, RandomReadsMatchTheSource) {
  auto fs = MakeFs(&store_, Prefetch::kAuto);
  auto file = fs->Open(InoOf(*fs, "model.bin"));
  ASSERT_TRUE(file.has_value()) << file.error().ToString();
  std::mt19937_64 rng(42);
  for (int i = 0; i < 300; ++i) {
    uint64_t off = rng() % (big_.size() + 100);
    size_t len = 1 + rng() % (3 << 20);
    auto r = fs->Read(**file, off, len);
    ASSERT_TRUE(r.has_value()) << r.error().ToString();
    std::string want = off < big_.size() ? big_.substr(off, len) : "";
    ASSERT_EQ(Flatten(*r), want) << "offset " << off << " length " << len;
  }
  auto small = fs->Open(InoOf(*fs, "small.txt"));
  ASSERT_TRUE(small.has_value());
  EXPECT_EQ(Flatten(*fs->Read(**small, 1, 100)), "ello");
  auto empty = fs->Open(InoOf(*fs, "empty"));
  ASSERT_TRUE(empty.has_value());
  EXPECT_EQ(fs->Read(**empty, 0, 100)->bytes, 0u);
}

TEST_F(VolumeFsTest, SequentialReaderGetsChunksPrefetched) {
  auto fs = MakeFs(&store_, Prefetch::kAuto);
  auto file = fs->Open(InoOf(*fs, "model.bin"));
  ASSERT_TRUE(file.has_value());
  std::string got;
  for (uint64_t off = 0; off < big_.size(); off += 128 << 10) {
    auto r = fs->Read(**file, off, 128 << 10);
    ASSERT_TRUE(r.has_value());
    got += Flatten(*r);
  }
  EXPECT_EQ(got, big_);
  source_.reset();  // drains the prefetches
  EXPECT_GT(stats_.prefetched.load(), 0u);
}

TEST_F(VolumeFsTest, WithoutPrefetchOnlyWhatIsReadIsFetched) {
  auto fs = MakeFs(&store_, Prefetch::kNone);
  auto file = fs->Open(InoOf(*fs, "model.bin"));
  ASSERT_TRUE(file.has_value());
  uint64_t before = stats_.fetches.load();  // the chunk index
  ASSERT_TRUE(fs->Read(**file, 0, 4096).has_value());
  source_.reset();
  EXPECT_EQ(stats_.fetches.load() - before, 1u);
  EXPECT_EQ(stats_.prefetched.load(), 0u);
}

TEST_F(VolumeFsTest, CorruptChunkFailsThatReadNamingItThenRepairWorks) {
  auto fs = MakeFs(&store_, Prefetch::kNone);
  uint64_t ino = InoOf(*fs, "model.bin");
  auto file = fs->Open(ino);
  ASSERT_TRUE(file.has_value());
  // Corrupt the second chunk of model.bin.
  auto layout_read = fs->Read(**file, 0, 1);
  ASSERT_TRUE(layout_read.has_value());
  const ManifestEntry* e = manifest_.Find("model.bin");
  ASSERT_NE(e, nullptr);
  auto chunks = FileChunks(store_, *e);
  ASSERT_TRUE(chunks.has_value());
  ASSERT_GE(chunks->size(), 2u);
  const ChunkRef& victim = (*chunks)[1];
  auto good = store_.Get(victim.digest);
  ASSERT_TRUE(good.has_value());
  store_.Corrupt(victim.digest, std::string(good->size(), 'X'));
  uint64_t off = (*chunks)[0].length + 10;
  auto bad = fs->Read(**file, off, 100);
  ASSERT_FALSE(bad.has_value());
  std::string msg = bad.error().ToString();
  EXPECT_NE(msg.find("model.bin"), std::string::npos) << msg;
  EXPECT_NE(msg.find("offset " + std::to_string(off)), std::string::npos)
      << msg;
  EXPECT_NE(msg.find(victim.digest.ToString()), std::string::npos) << msg;
  // Other files still read.
  auto small = fs->Open(InoOf(*fs, "small.txt"));
  EXPECT_EQ(Flatten(*fs->Read(**small, 0, 5)), "hello");
  // Repair the store: the same open file now reads correctly.
  store_.Corrupt(victim.digest, *good);
  auto fixed = fs->Read(**file, off, 100);
  ASSERT_TRUE(fixed.has_value()) << fixed.error().ToString();
  EXPECT_EQ(Flatten(*fixed), big_.substr(off, 100));
}

TEST_F(VolumeFsTest, UnavailableStoreIsRetriedUntilItRecovers) {
  FaultInjectingBlobStore flaky(&store_);
  FetchOptions fetch;
  fetch.first_backoff = std::chrono::milliseconds(5);
  fetch.retry_for = std::chrono::milliseconds(20000);
  auto fs = MakeFs(&flaky, Prefetch::kNone, nullptr, fetch);
  flaky.FailFromCall(1, Unavailable("store down"));
  std::thread healer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    flaky.Heal();
  });
  auto file = fs->Open(InoOf(*fs, "model.bin"));
  healer.join();
  ASSERT_TRUE(file.has_value()) << file.error().ToString();
  auto r = fs->Read(**file, 0, 1000);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(Flatten(*r), big_.substr(0, 1000));
  EXPECT_GT(stats_.fetch_retries.load(), 0u);
}

TEST_F(VolumeFsTest, GivesUpAfterRetryForWithTheStoreError) {
  FaultInjectingBlobStore flaky(&store_);
  FetchOptions fetch;
  fetch.first_backoff = std::chrono::milliseconds(1);
  fetch.retry_for = std::chrono::milliseconds(30);
  auto fs = MakeFs(&flaky, Prefetch::kNone, nullptr, fetch);
  flaky.FailFromCall(1, Unavailable("store down"));
  auto file = fs->Open(InoOf(*fs, "model.bin"));
  ASSERT_FALSE(file.has_value());
  EXPECT_EQ(file.error().code(), StatusCode::kUnavailable);
}

TEST_F(VolumeFsTest, PrefetchAllHydratesTheNodeCache) {
  TempDir cache_dir;
  auto disk = NodeCache::Open(cache_dir.path(), 1ull << 30, &stats_);
  ASSERT_TRUE(disk.has_value());
  auto fs = MakeFs(&store_, Prefetch::kAll, disk->get());
  fs->StartHydration();
  for (int i = 0; i < 2000 && !fs->hydration_done(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_TRUE(fs->hydration_done());
  EXPECT_EQ(fs->hydrated_bytes(), big_.size() + 5);
  // Every chunk now comes from the node cache, none from the store.
  MemoryBlobStore empty_store;
  ChunkCache fresh_memory(64 << 20);
  MountStats fresh_stats;
  ChunkSource offline(&empty_store, &fresh_memory, disk->get(), &fresh_stats);
  auto tree = VolumeTree::Build(manifest_);
  ASSERT_TRUE(tree.has_value());
  VolumeFs fs2(std::move(*tree), &offline, FsOptions{});
  auto file = fs2.Open(fs2.Lookup(kRootIno, "model.bin")->st_ino);
  ASSERT_TRUE(file.has_value()) << file.error().ToString();
  auto r = fs2.Read(**file, 0, big_.size());
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(Flatten(*r), big_);
  EXPECT_EQ(fresh_stats.fetches.load(), 0u);
}

}  // namespace
}  // namespace sealvol
