#include "store/blob_reader.h"

#include <gtest/gtest.h>

#include "hash/sha256.h"
#include "store/memory_blob_store.h"

namespace sealvol {
namespace {

Digest PutPlain(MemoryBlobStore& s, const std::string& plain) {
  Digest d = Sha256::Of(plain);
  EXPECT_TRUE(
      s.Put(d, EncodeEnvelope(plain, CompressPolicy::kAuto)).has_value());
  return d;
}

TEST(BlobReaderTest, ReturnsOnlyVerifiedBytes) {
  MemoryBlobStore s;
  Digest d = PutPlain(s, "weights");
  EXPECT_EQ(*ReadBlob(s, d, 7), "weights");
  s.Corrupt(d, EncodeEnvelope("weightz", CompressPolicy::kNone));
  auto r = ReadBlob(s, d, 7);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), StatusCode::kCorruption);
  EXPECT_NE(r.error().message().find(d.ToString()), std::string::npos);
  auto missing = ReadBlob(s, Sha256::Of("nope"));
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code(), StatusCode::kNotFound);
}

TEST(BlobReaderTest, FileChunksChecksTheIndexAgainstTheFile) {
  MemoryBlobStore s;
  ChunkIndex idx{{{Sha256::Of("a"), 300000}, {Sha256::Of("b"), 1000}}};
  Digest id = PutPlain(s, SerializeChunkIndex(idx));
  ManifestEntry e;
  e.path = "f";
  e.size = 301000;
  e.chunks = id;
  auto chunks = FileChunks(s, e);
  ASSERT_TRUE(chunks.has_value()) << chunks.error().ToString();
  EXPECT_EQ(chunks->size(), 2u);
  e.size = 301001;  // the index no longer adds up
  auto bad = FileChunks(s, e);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code(), StatusCode::kCorruption);

  ManifestEntry one;
  one.path = "g";
  one.size = 10;
  one.sha256 = Sha256::Of("0123456789");
  auto single = FileChunks(s, one);
  ASSERT_EQ(single->size(), 1u);
  EXPECT_EQ((*single)[0].digest, one.sha256);
  ManifestEntry empty;
  empty.size = 0;
  EXPECT_TRUE(FileChunks(s, empty)->empty());
}

}  // namespace
}  // namespace sealvol
