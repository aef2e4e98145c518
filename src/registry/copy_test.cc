// CopyVersion between two independent stores: only missing blobs move,
// the copy verifies, and a corrupt source blob stops the copy before the
// destination commits anything.
#include "registry/copy.h"

#include <gtest/gtest.h>

#include "format/chunk_index.h"
#include "hash/sha256.h"
#include "meta/sqlite_meta_store.h"
#include "registry/registry.h"
#include "store/blob_reader.h"
#include "store/memory_blob_store.h"

namespace sealvol {
namespace {

struct Store {
  Store() : meta(std::move(*SqliteMetaStore::Open(":memory:"))) {}
  MemoryBlobStore blobs;
  std::unique_ptr<SqliteMetaStore> meta;
  Registry reg{&blobs, meta.get()};
};

Digest PutPlain(BlobStore& s, const std::string& plain) {
  Digest d = Sha256::Of(plain);
  EXPECT_TRUE(
      s.Put(d, EncodeEnvelope(plain, CompressPolicy::kNone)).has_value());
  return d;
}

// A version with one two-chunk file whose first chunk is `shared`.
Digest Commit(Store& s, const std::string& shared, const std::string& tail) {
  Manifest m;
  ManifestEntry e;
  e.path = "w.bin";
  e.size = shared.size() + tail.size();
  e.sha256 = Sha256::Of(shared + tail);
  ChunkIndex idx{
      {{PutPlain(s.blobs, shared), static_cast<uint32_t>(shared.size())},
       {PutPlain(s.blobs, tail), static_cast<uint32_t>(tail.size())}}};
  e.chunks = PutPlain(s.blobs, SerializeChunkIndex(idx));
  m.entries = {e};
  auto d = s.reg.CommitVersion("acme/m", *SerializeManifest(m),
                               R"({"user":"a"})", CompressPolicy::kAuto);
  EXPECT_TRUE(d.has_value()) << d.error().ToString();
  return *d;
}

TEST(CopyTest, CopiesOnlyMissingBlobsAndVerifies) {
  Store a, b;
  std::string shared(300000, 's');
  Digest v1 = Commit(a, shared, "one");
  Digest v2 = Commit(a, shared, "two");
  auto first = CopyVersion(a.reg, "acme/m", v1, b.reg, "team/m", 2);
  ASSERT_TRUE(first.has_value()) << first.error().ToString();
  EXPECT_EQ(first->digest, v1);
  EXPECT_EQ(first->blobs_total, 3u);  // index + two chunks
  EXPECT_EQ(first->blobs_copied, 3u);
  // v2 shares a chunk: only its index and its tail move.
  auto second = CopyVersion(a.reg, "acme/m", v2, b.reg, "team/m", 2);
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->blobs_copied, 2u);
  auto again = CopyVersion(a.reg, "acme/m", v2, b.reg, "team/m", 2);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->blobs_copied, 0u);
  auto m = b.reg.LoadManifest("team/m", v2);
  ASSERT_TRUE(m.has_value());
  auto chunks = FileChunks(b.blobs, m->entries[0]);
  ASSERT_TRUE(chunks.has_value());
  EXPECT_EQ(*ReadBlob(b.blobs, (*chunks)[1].digest), "two");
  auto rec = b.reg.GetVersion("team/m", v2);
  EXPECT_NE(rec->annotations.find("copied_from"), std::string::npos);
  EXPECT_NE(rec->annotations.find("\"user\":\"a\""), std::string::npos);
}

TEST(CopyTest, CorruptSourceBlobCommitsNothing) {
  Store a, b;
  Digest v = Commit(a, std::string(300000, 'x'), "tail");
  // Replace the tail chunk's stored bytes with something else.
  Digest tail = Sha256::Of(std::string("tail"));
  ASSERT_TRUE(a.blobs.Delete(tail).ok());
  ASSERT_TRUE(a.blobs.Put(tail, EncodeEnvelope("evil", CompressPolicy::kNone))
                  .has_value());
  auto r = CopyVersion(a.reg, "acme/m", v, b.reg, "acme/m", 2);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), StatusCode::kCorruption) << r.error().ToString();
  EXPECT_FALSE(*b.blobs.Has(tail));
  EXPECT_TRUE(b.meta->ListVolumes()->empty());
}

}  // namespace
}  // namespace sealvol
