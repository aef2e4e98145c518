#include "pull/puller.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "hash/sha256.h"
#include "publish/publisher.h"
#include "store/blob_reader.h"
#include "store/memory_blob_store.h"
#include "testing/temp_dir.h"

namespace sealvol {
namespace {

using testing::RandomBytes;
using testing::TempDir;

struct Published {
  MemoryBlobStore store;
  Manifest manifest;
  std::string big;
};

void Publish(const TempDir& src, Published* out) {
  out->big = RandomBytes(11, 7 << 20);
  src.Write("model.bin", out->big);
  src.Write("sub/cfg.json", "{}");
  src.Write("run.sh", "#!/bin/sh\n", 0755);
  src.Write("empty", "");
  src.Mkdir("nothing/here");
  src.Symlink("../model.bin", "sub/link");
  auto v = Publisher(&out->store, PublishOptions{}).Build(src.path());
  ASSERT_TRUE(v.has_value()) << v.error().ToString();
  out->manifest = v->manifest;
}

TEST(PullTest, MaterializesTheTreeExactly) {
  TempDir src, dst;
  Published p;
  Publish(src, &p);
  auto stats = Pull(p.store, p.manifest, dst / "out", PullOptions{});
  ASSERT_TRUE(stats.has_value()) << stats.error().ToString();
  EXPECT_EQ(stats->files_written, 4u);
  EXPECT_EQ(dst.Read("out/model.bin"), p.big);
  EXPECT_EQ(dst.Read("out/sub/cfg.json"), "{}");
  EXPECT_EQ(std::filesystem::read_symlink(dst / "out/sub/link"),
            "../model.bin");
  EXPECT_TRUE(std::filesystem::is_directory(dst / "out/nothing/here"));
  struct stat st;
  ASSERT_EQ(::stat((dst / "out/run.sh").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0755u);
  ASSERT_EQ(::stat((dst / "out/model.bin").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);

  // A second pull skips identical files and repairs a changed one.
  dst.Write("out/sub/cfg.json", "{\"tampered\":1}");
  auto again = Pull(p.store, p.manifest, dst / "out", PullOptions{});
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->files_written, 1u);
  EXPECT_EQ(again->files_skipped, 3u);
  EXPECT_EQ(dst.Read("out/sub/cfg.json"), "{}");
}

TEST(PullTest, SmallBatchesCommitInTheBackgroundAndMissNothing) {
  TempDir src, dst;
  Published p;
  Publish(src, &p);
  PullOptions tiny;
  tiny.batch_bytes = 1;  // every file is its own batch
  auto stats = Pull(p.store, p.manifest, dst / "out", tiny);
  ASSERT_TRUE(stats.has_value()) << stats.error().ToString();
  EXPECT_EQ(stats->files_written, 4u);
  EXPECT_EQ(dst.Read("out/model.bin"), p.big);
  EXPECT_EQ(dst.Read("out/run.sh"), "#!/bin/sh\n");
  EXPECT_TRUE(std::filesystem::exists(dst / "out/empty"));
}

TEST(PullTest, CorruptChunkFailsWithoutAPartialFile) {
  TempDir src, dst;
  Published p;
  Publish(src, &p);
  const ManifestEntry* e = p.manifest.Find("model.bin");
  auto chunks = *FileChunks(p.store, *e);
  ASSERT_GT(chunks.size(), 2u);
  p.store.Corrupt(chunks[1].digest,
                  EncodeEnvelope(std::string(chunks[1].length, 'x'),
                                 CompressPolicy::kNone));
  dst.Write("out/model.bin",
            "old contents stay until a verified file replaces them");
  auto r = Pull(p.store, p.manifest, dst / "out", PullOptions{});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), StatusCode::kCorruption);
  EXPECT_NE(r.error().message().find("'model.bin' chunk 1"), std::string::npos)
      << r.error().message();
  EXPECT_EQ(dst.Read("out/model.bin"),
            "old contents stay until a verified file replaces them");
  for (auto& f : std::filesystem::directory_iterator(dst / "out")) {
    EXPECT_EQ(f.path().filename().string().find(".tmp-"), std::string::npos);
  }

  auto report = Verify(p.store, p.manifest);
  ASSERT_TRUE(report.has_value());
  ASSERT_EQ(report->problems.size(), 1u);
  EXPECT_EQ(report->problems[0].path, "model.bin");
  EXPECT_EQ(report->problems[0].chunk, 1);
  EXPECT_EQ(report->problems[0].offset, chunks[0].length);
}

TEST(PullTest, NeverWritesThroughASymlinkedDirectory) {
  TempDir src, dst, outside;
  Published p;
  Publish(src, &p);
  dst.Mkdir("out");
  dst.Symlink(outside.path(), "out/sub");  // "sub" would lead outside
  auto r = Pull(p.store, p.manifest, dst / "out", PullOptions{});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE(std::filesystem::is_empty(outside.path()));
}

TEST(PullTest, VerifyReportsMissingBlobsByPath) {
  TempDir src;
  Published p;
  Publish(src, &p);
  auto clean = Verify(p.store, p.manifest);
  ASSERT_TRUE(clean.has_value());
  EXPECT_TRUE(clean->problems.empty());
  EXPECT_EQ(clean->files, 4u);
  const ManifestEntry* cfg = p.manifest.Find("sub/cfg.json");
  ASSERT_TRUE(p.store.Delete(cfg->sha256).ok());
  auto r = Verify(p.store, p.manifest);
  ASSERT_EQ(r->problems.size(), 1u);
  EXPECT_EQ(r->problems[0].path, "sub/cfg.json");
  EXPECT_NE(r->problems[0].what.find("NotFound"), std::string::npos);
}

TEST(PullTest, CatStreamsVerifiedBytes) {
  TempDir src;
  Published p;
  Publish(src, &p);
  std::string out;
  ASSERT_TRUE(
      CatFile(p.store, *p.manifest.Find("model.bin"), [&](std::string_view d) {
        out.append(d);
        return Status::Ok();
      }).ok());
  EXPECT_EQ(out, p.big);
}

}  // namespace
}  // namespace sealvol
