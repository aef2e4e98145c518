#include "publish/publisher.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hash/sha256.h"
#include "meta/sqlite_meta_store.h"
#include "registry/registry.h"
#include "store/blob_reader.h"
#include "store/fault_injecting_blob_store.h"
#include "store/memory_blob_store.h"
#include "testing/temp_dir.h"

namespace sealvol {
namespace {

using testing::RandomBytes;
using testing::TempDir;

void MakeTree(const TempDir& t, const std::string& big) {
  t.Write("config.json", "{\"hidden\":64}");
  t.Write("model.bin", big);
  t.Write("run.sh", "#!/bin/sh\n", 0755);
  t.Write("empty.txt", "");
  t.Mkdir("empty-dir");
  t.Symlink("model.bin", "alias.bin");
}

// Reassembles a file from the store through the manifest.
std::string ReadBack(BlobStore& store, const ManifestEntry& e) {
  std::string out;
  auto chunks = FileChunks(store, e);
  EXPECT_TRUE(chunks.has_value());
  for (const auto& c : *chunks) out += *ReadBlob(store, c.digest, c.length);
  return out;
}

TEST(PublisherTest, StoresEverythingNeededToReadTheTreeBack) {
  TempDir t;
  std::string big = RandomBytes(1, 9 << 20);
  MakeTree(t, big);
  MemoryBlobStore store;
  Publisher p(&store, PublishOptions{});
  auto v = p.Build(t.path());
  ASSERT_TRUE(v.has_value()) << v.error().ToString();
  EXPECT_EQ(v->files, 4u);
  EXPECT_EQ(v->bytes, big.size() + 13 + 10);
  EXPECT_EQ(v->new_bytes, v->bytes);
  EXPECT_EQ(v->digest, Sha256::Of(v->manifest_bytes));
  const ManifestEntry* m = v->manifest.Find("model.bin");
  ASSERT_NE(m, nullptr);
  ASSERT_TRUE(m->chunks.has_value());
  EXPECT_EQ(m->sha256, Sha256::Of(big));
  EXPECT_EQ(ReadBack(store, *m), big);
  EXPECT_TRUE(v->manifest.Find("run.sh")->executable);
  EXPECT_EQ(v->manifest.Find("alias.bin")->target, "model.bin");
  EXPECT_EQ(v->manifest.Find("empty-dir")->type, EntryType::kDir);
  // The registry accepts it: every blob it names is present.
  auto meta = std::move(*SqliteMetaStore::Open(":memory:"));
  Registry reg(&store, meta.get());
  EXPECT_TRUE(reg.CommitVersion("acme/m", v->manifest_bytes, "{}",
                                CompressPolicy::kAuto)
                  .has_value());
}

TEST(PublisherTest, DigestDependsOnlyOnContent) {
  TempDir t;
  MakeTree(t, RandomBytes(2, 6 << 20));
  PublishOptions slow;
  slow.threads = 1;
  slow.read_block = 4096;
  slow.memory_budget = 1;
  PublishOptions fast;
  fast.threads = 4;
  fast.compress = CompressPolicy::kNone;
  MemoryBlobStore s1, s2;
  auto a = Publisher(&s1, slow).Build(t.path());
  auto b = Publisher(&s2, fast).Build(t.path());
  auto c = Publisher(nullptr, PublishOptions{}).Build(t.path());
  ASSERT_TRUE(a.has_value() && b.has_value() && c.has_value());
  EXPECT_EQ(a->digest, b->digest);
  EXPECT_EQ(a->digest, c->digest);
  EXPECT_EQ(a->manifest_bytes, b->manifest_bytes);
  // The same tree somewhere else gives the same digest.
  TempDir other;
  MakeTree(other, RandomBytes(2, 6 << 20));
  EXPECT_EQ(Publisher(nullptr, PublishOptions{}).Build(other.path())->digest,
            a->digest);
}

TEST(PublisherTest, RepublishStoresOnlyWhatChanged) {
  MemoryBlobStore store;
  TempDir v1;
  std::string base = RandomBytes(3, 16 << 20);
  MakeTree(v1, base);
  ASSERT_TRUE(Publisher(&store, PublishOptions{}).Build(v1.path()).has_value());
  auto same = Publisher(&store, PublishOptions{}).Build(v1.path());
  EXPECT_EQ(same->new_bytes, 0u);
  EXPECT_EQ(same->reused_bytes, same->bytes);

  TempDir v2;
  std::string edited = base;
  edited.insert(8 << 20, RandomBytes(4, 256 << 10));  // shifts everything after
  MakeTree(v2, edited);
  auto r = Publisher(&store, PublishOptions{}).Build(v2.path());
  ASSERT_TRUE(r.has_value());
  // The insert plus the chunks around it, not the shifted tail.
  EXPECT_LT(r->new_bytes, (256u << 10) + 2 * kChunkParamsV1.max_size);
  EXPECT_GT(r->new_bytes, 256u << 10);
}

TEST(PublisherTest, StoreFailuresFailThePublishAndARerunReusesBlobs) {
  TempDir t;
  MakeTree(t, RandomBytes(5, 10 << 20));
  MemoryBlobStore base;
  for (uint64_t n : {1, 5, 12, 20}) {
    FaultInjectingBlobStore faulty(&base);
    faulty.FailFromCall(n, IOError("disk full"));
    auto v = Publisher(&faulty, PublishOptions{}).Build(t.path());
    ASSERT_FALSE(v.has_value()) << "call " << n;
    EXPECT_NE(v.error().message().find("disk full"), std::string::npos);
  }
  auto v = Publisher(&base, PublishOptions{}).Build(t.path());
  ASSERT_TRUE(v.has_value());
  EXPECT_GT(v->reused_bytes, 0u);  // the failed runs' blobs were kept
  EXPECT_EQ(v->new_bytes + v->reused_bytes, v->bytes);
}

TEST(PublisherTest, EmptyTree) {
  TempDir t;
  auto v = Publisher(nullptr, PublishOptions{}).Build(t.path());
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->files, 0u);
  EXPECT_TRUE(v->manifest.entries.empty());
}

}  // namespace
}  // namespace sealvol

namespace sealvol {
namespace {

TEST(PublisherTest, FileCacheSkipsUnchangedFilesButNeverTrustsMissingBlobs) {
  TempDir t, cache_dir;
  std::string big = RandomBytes(21, 6 << 20);
  MakeTree(t, big);
  // Make the files older than the racy window so the cache records them.
  for (const char* f : {"config.json", "model.bin", "run.sh", "empty.txt"}) {
    struct timespec old[2] = {{1000000000, 0}, {1000000000, 0}};
    ASSERT_EQ(::utimensat(AT_FDCWD, (t / f).c_str(), old, 0), 0);
  }
  // ctime cannot be set back; wait out the racy window instead.
  ::sleep(FileCache::kRacyWindowNs / 1000000000 + 1);
  MemoryBlobStore store;
  auto cache = std::move(*FileCache::Open(cache_dir / "files.db"));
  auto first = Publisher(&store, PublishOptions{}, cache.get()).Build(t.path());
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->cached_files, 0u);

  auto second =
      Publisher(&store, PublishOptions{}, cache.get()).Build(t.path());
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->cached_files, 4u);
  EXPECT_EQ(second->digest, first->digest);
  EXPECT_EQ(second->new_bytes, 0u);

  // A changed file is read again.
  t.Write("config.json", "{\"hidden\":128}");
  auto third = Publisher(&store, PublishOptions{}, cache.get()).Build(t.path());
  ASSERT_TRUE(third.has_value());
  EXPECT_EQ(third->cached_files, 3u);
  EXPECT_NE(third->digest, first->digest);
  EXPECT_EQ(third->digest,
            Publisher(nullptr, PublishOptions{}).Build(t.path())->digest);

  // A chunk gone from the store: the file is read and the chunk stored again.
  auto chunks = *FileChunks(store, *first->manifest.Find("model.bin"));
  ASSERT_TRUE(store.Delete(chunks[1].digest).ok());
  auto fourth =
      Publisher(&store, PublishOptions{}, cache.get()).Build(t.path());
  ASSERT_TRUE(fourth.has_value());
  EXPECT_LE(fourth->cached_files, 3u);
  EXPECT_TRUE(*store.Has(chunks[1].digest));
  EXPECT_EQ(ReadBack(store, *fourth->manifest.Find("model.bin")), big);
}

}  // namespace
}  // namespace sealvol
