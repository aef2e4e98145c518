#include "registry/registry.h"

#include <gtest/gtest.h>

#include "format/chunk_index.h"
#include "hash/sha256.h"
#include "meta/sqlite_meta_store.h"
#include "registry/namespaced_blob_store.h"
#include "store/blob_reader.h"
#include "store/memory_blob_store.h"

namespace sealvol {
namespace {

class RegistryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    meta_ = std::move(*SqliteMetaStore::Open(":memory:"));
    reg_ = std::make_unique<Registry>(&blobs_, meta_.get());
  }
  Digest Put(const std::string& plain) {
    Digest d = Sha256::Of(plain);
    EXPECT_TRUE(blobs_.Put(d, EncodeEnvelope(plain, CompressPolicy::kNone))
                    .has_value());
    return d;
  }
  // A manifest with one small file and one two-chunk file.
  std::string Manifest2(const std::string& seed, bool store_blobs = true) {
    std::string small = "small-" + seed;
    std::string c1(300000, 'a' + seed.size() % 20), c2 = "tail-" + seed;
    Manifest m;
    ManifestEntry s;
    s.path = "a.txt";
    s.size = small.size();
    s.sha256 = store_blobs ? Put(small) : Sha256::Of(small);
    ManifestEntry big;
    big.path = "b.bin";
    big.size = c1.size() + c2.size();
    big.sha256 = Sha256::Of(c1 + c2);
    ChunkIndex idx{{{store_blobs ? Put(c1) : Sha256::Of(c1), 300000},
                    {store_blobs ? Put(c2) : Sha256::Of(c2),
                     static_cast<uint32_t>(c2.size())}}};
    big.chunks = Put(SerializeChunkIndex(idx));
    m.entries = {s, big};
    return *SerializeManifest(m);
  }
  MemoryBlobStore blobs_;
  std::unique_ptr<SqliteMetaStore> meta_;
  std::unique_ptr<Registry> reg_;
};

TEST_F(RegistryTest, CommitsAVersionWhoseBlobsExist) {
  std::string m = Manifest2("x");
  auto d = reg_->CommitVersion("acme/m", m, "{}", CompressPolicy::kAuto);
  ASSERT_TRUE(d.has_value()) << d.error().ToString();
  EXPECT_EQ(*d, Sha256::Of(m));
  auto loaded = reg_->LoadManifest("acme/m", *d);
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(loaded->entries.size(), 2u);
  EXPECT_EQ(*reg_->Resolve(*ParseRef("acme/m@" + d->ToString())), *d);
  // Idempotent.
  EXPECT_EQ(*reg_->CommitVersion("acme/m", m, "{}", CompressPolicy::kAuto), *d);
  EXPECT_EQ(meta_->ListVersions("acme/m")->size(), 1u);
}

TEST_F(RegistryTest, RefusesVersionsWithMissingBlobsNamingThem) {
  std::string m = Manifest2("y", /*store_blobs=*/false);
  auto d = reg_->CommitVersion("acme/m", m, "{}", CompressPolicy::kAuto);
  ASSERT_FALSE(d.has_value());
  EXPECT_EQ(d.error().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(d.error().message().find("a.txt"), std::string::npos);
  EXPECT_NE(d.error().message().find("b.bin at offset 300000"),
            std::string::npos);
  EXPECT_EQ(meta_->ListVolumes()->size(), 0u);  // nothing visible
  EXPECT_FALSE(*blobs_.Has(Sha256::Of(m)));
}

TEST_F(RegistryTest, RefusesBadManifestsAndNames) {
  EXPECT_EQ(reg_->CommitVersion("acme/m", "{}", "{}", CompressPolicy::kAuto)
                .error()
                .code(),
            StatusCode::kCorruption);
  EXPECT_EQ(reg_->CommitVersion("Bad Name", Manifest2("z"), "{}",
                                CompressPolicy::kAuto)
                .error()
                .code(),
            StatusCode::kInvalidArgument);
}

TEST_F(RegistryTest, ResolvesTagsAndRejectsForeignDigests) {
  Digest d = *reg_->CommitVersion("acme/m", Manifest2("x"), "{}",
                                  CompressPolicy::kAuto);
  ASSERT_TRUE(
      reg_->MoveTag("acme/m", "prod", d, TagExpect::Any(), "t", "").ok());
  EXPECT_EQ(*reg_->Resolve(*ParseRef("acme/m:prod")), d);
  EXPECT_EQ(reg_->Resolve(*ParseRef("acme/m")).error().code(),
            StatusCode::kNotFound);
  // A digest of another volume is not a version of this one.
  EXPECT_EQ(reg_->Resolve(*ParseRef("other/v@" + d.ToString())).error().code(),
            StatusCode::kNotFound);
  EXPECT_FALSE(
      reg_->MoveTag("acme/m", "bad tag", d, TagExpect::Any(), "t", "").ok());
}

TEST_F(RegistryTest, GcRemovesOnlyOldUnreferencedBlobs) {
  blobs_.set_now(1000);
  Digest d = *reg_->CommitVersion("acme/m", Manifest2("keep"), "{}",
                                  CompressPolicy::kAuto);
  Digest orphan_old = Put("orphan written long ago");
  blobs_.set_now(5000);
  Digest orphan_young = Put("orphan written just now");
  uint64_t before = 0;
  ASSERT_TRUE(blobs_.List([&](const BlobInfo&) { ++before; }).ok());

  auto dry = reg_->CollectGarbage(3600, /*dry_run=*/true, 5000);
  ASSERT_TRUE(dry.has_value());
  EXPECT_EQ(dry->removed, 1u);
  EXPECT_TRUE(*blobs_.Has(orphan_old));

  auto gc = reg_->CollectGarbage(3600, false, 5000);
  ASSERT_TRUE(gc.has_value());
  EXPECT_EQ(gc->versions, 1u);
  EXPECT_EQ(gc->removed, 1u);
  EXPECT_EQ(gc->young, 1u);
  EXPECT_FALSE(*blobs_.Has(orphan_old));
  EXPECT_TRUE(*blobs_.Has(orphan_young));
  EXPECT_EQ(gc->live_blobs, before - 2);
  // Every blob of the version survives.
  EXPECT_TRUE(reg_->LoadManifest("acme/m", d).has_value());
  auto m = *reg_->LoadManifest("acme/m", d);
  for (const auto& e : m.entries) {
    auto chunks = FileChunks(blobs_, e);
    ASSERT_TRUE(chunks.has_value());
    for (const auto& c : *chunks) EXPECT_TRUE(*blobs_.Has(c.digest));
  }
}

TEST_F(RegistryTest, GcRefusesToGuessWhenAVersionIsUnreadable) {
  blobs_.set_now(1);
  Digest d = *reg_->CommitVersion("acme/m", Manifest2("a"), "{}",
                                  CompressPolicy::kAuto);
  Digest orphan = Put("orphan");
  ASSERT_TRUE(blobs_.Delete(d).ok());  // the manifest blob is gone
  auto gc = reg_->CollectGarbage(0, false, 100000);
  ASSERT_FALSE(gc.has_value());
  EXPECT_NE(gc.error().message().find("nothing removed"), std::string::npos);
  EXPECT_TRUE(*blobs_.Has(orphan));
}

TEST_F(RegistryTest, NamespacesSeeOnlyTheirOwnBlobs) {
  // "acme" commits a version (through the whole store, as the embedded CLI
  // does); the commit links its blobs to "acme" only.
  std::string m = Manifest2("ns");
  Digest v = *reg_->CommitVersion("acme/m", m, "{}", CompressPolicy::kAuto);
  NamespacedBlobStore acme(&blobs_, meta_.get(), "acme");
  NamespacedBlobStore other(&blobs_, meta_.get(), "other");
  Digest small = Sha256::Of(std::string("small-ns"));
  EXPECT_TRUE(*acme.Has(small));
  EXPECT_TRUE(acme.Get(v).has_value());
  EXPECT_FALSE(*other.Has(small));
  EXPECT_EQ(other.Get(small).error().code(), StatusCode::kNotFound);
  EXPECT_EQ(*other.Missing({small, v}), (std::vector<Digest>{small, v}));
  EXPECT_TRUE(acme.Missing({small, v})->empty());
  // Linked but gone from the store (removed behind the registry's back):
  // missing again, in the order asked, among unlinked and present ones.
  Digest never = Sha256::Of(std::string("never-ns"));
  ASSERT_TRUE(blobs_.Delete(small).ok());
  EXPECT_EQ(*acme.Missing({never, v, small}),
            (std::vector<Digest>{never, small}));

  // "other" cannot commit a manifest naming blobs it never uploaded...
  Registry other_reg(&other, meta_.get());
  auto denied =
      other_reg.CommitVersion("other/m", m, "{}", CompressPolicy::kAuto);
  ASSERT_FALSE(denied.has_value());
  EXPECT_EQ(denied.error().code(), StatusCode::kFailedPrecondition);
  // ...until it uploads them itself: then the stored bytes are shared.
  auto put =
      other.Put(small, EncodeEnvelope("small-ns", CompressPolicy::kNone));
  ASSERT_TRUE(put.has_value());
  EXPECT_TRUE(*put);  // new to "other", though already stored
  EXPECT_TRUE(*other.Has(small));
  EXPECT_FALSE(*other.Put(small, "ignored"));
}

TEST_F(RegistryTest, LinksVersionsCommittedBeforeLinksExisted) {
  std::string m = Manifest2("old");
  Digest v = Sha256::Of(m);
  ASSERT_TRUE(
      blobs_.Put(v, EncodeEnvelope(m, CompressPolicy::kNone)).has_value());
  VersionRecord rec;
  rec.volume = "acme/old";
  rec.digest = v;
  ASSERT_TRUE(meta_->AddVersion(rec).ok());
  NamespacedBlobStore acme(&blobs_, meta_.get(), "acme");
  EXPECT_FALSE(*acme.Has(v));
  EXPECT_EQ(*reg_->LinkUnlinkedVersions(), 1u);
  EXPECT_TRUE(*acme.Has(v));
  EXPECT_TRUE(*acme.Has(Sha256::Of(std::string("small-old"))));
  EXPECT_EQ(*reg_->LinkUnlinkedVersions(), 0u);
}

}  // namespace
}  // namespace sealvol
