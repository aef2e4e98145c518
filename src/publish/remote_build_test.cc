#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <set>

#include "hash/sha256.h"
#include "publish/prefetch.h"
#include "publish/publisher.h"
#include "store/blob_reader.h"
#include "store/memory_blob_store.h"
#include "testing/temp_dir.h"

namespace sealvol {
namespace {

using testing::RandomBytes;
using testing::TempDir;

RemoteEntry Entry(std::string path, EntryType type, uint64_t size) {
  RemoteEntry e;
  e.path = std::move(path);
  e.type = type;
  e.size = size;
  return e;
}

// A remote tree in memory that counts what is read from it.
class FakeSource : public RemoteSource {
 public:
  std::map<std::string, std::string> files;
  std::vector<RemoteEntry> extra;             // symlinks, dirs, hostile entries
  std::map<std::string, std::string> stated;  // path -> claimed content
  std::string fail_path;                      // reads of it fail
  std::string shrink_path;                    // reads of it come back short
  std::atomic<uint64_t> bytes_read{0};
  std::mutex mu;
  std::set<std::string> paths_read;

  std::string Uri() const override { return "fake://bucket"; }
  Result<std::vector<RemoteEntry>> List() override {
    std::vector<RemoteEntry> out = extra;
    for (const auto& [path, data] : files) {
      RemoteEntry e;
      e.path = path;
      e.size = data.size();
      e.identity = Sha256::Of(data).Short();
      e.locator = path;
      auto st = stated.find(path);
      if (st != stated.end()) e.stated_sha256 = Sha256::Of(st->second);
      out.push_back(e);
    }
    return out;
  }
  Result<std::string> ReadRange(const RemoteEntry& e, uint64_t offset,
                                uint64_t length) override {
    {
      std::lock_guard<std::mutex> lock(mu);
      paths_read.insert(e.path);
    }
    if (e.path == fail_path) return Unavailable("connection reset");
    std::string s = files.at(e.locator).substr(offset, length);
    if (e.path == shrink_path) s.pop_back();
    bytes_read += s.size();
    return s;
  }
};

PublishOptions SmallBlocks() {
  PublishOptions o;
  o.fetch_block = 1 << 20;  // several ranges per large file
  o.fetch_window = 3 << 20;
  o.fetch_threads = 4;
  return o;
}

TEST(RemoteBuildTest, SameDigestAsPublishingTheSameTreeFromDisk) {
  std::string big = RandomBytes(7, 5 << 20);
  TempDir t;
  t.Write("model/weights.bin", big);
  t.Write("config.json", "{}");
  t.Write("empty.txt", "");
  t.Mkdir("logs");
  t.Symlink("model/weights.bin", "latest.bin");
  MemoryBlobStore local_store;
  auto local = Publisher(&local_store, PublishOptions{}).Build(t.path());
  ASSERT_TRUE(local.has_value()) << local.error().ToString();

  FakeSource src;
  src.files = {
      {"model/weights.bin", big}, {"config.json", "{}"}, {"empty.txt", ""}};
  RemoteEntry dir = Entry("logs", EntryType::kDir, 0);
  RemoteEntry link = Entry("latest.bin", EntryType::kSymlink, 0);
  link.target = "model/weights.bin";
  src.extra = {dir, link};
  MemoryBlobStore store;
  Publisher p(&store, SmallBlocks());
  auto listed = src.List();
  ASSERT_TRUE(listed.has_value());
  auto v = p.BuildRemote(src, *listed, {});
  ASSERT_TRUE(v.has_value()) << v.error().ToString();
  EXPECT_EQ(v->digest, local->digest);
  EXPECT_EQ(v->fetched_bytes, big.size() + 2);
  EXPECT_EQ(v->new_bytes, big.size() + 2);
  const ManifestEntry* w = v->manifest.Find("model/weights.bin");
  ASSERT_NE(w, nullptr);
  std::string back;
  auto chunks = FileChunks(store, *w);
  ASSERT_TRUE(chunks.has_value());
  for (const auto& c : *chunks) back += *ReadBlob(store, c.digest, c.length);
  EXPECT_EQ(back, big);
}

TEST(RemoteBuildTest, KnownFilesWithTheSameIdentityAreNotRead) {
  FakeSource src;
  src.files = {{"a.bin", RandomBytes(1, 3 << 20)},
               {"b.bin", RandomBytes(2, 2 << 20)}};
  MemoryBlobStore store;
  Publisher p(&store, SmallBlocks());
  auto first = p.BuildRemote(src, *src.List(), {});
  ASSERT_TRUE(first.has_value()) << first.error().ToString();
  KnownFiles known;
  auto listed = src.List();
  ASSERT_TRUE(listed.has_value());
  for (const auto& e : *listed)
    known[e.path] = {e.identity, *first->manifest.Find(e.path)};

  src.files["b.bin"] = RandomBytes(3, 2 << 20);  // b changes, a does not
  src.bytes_read = 0;
  src.paths_read.clear();
  auto second = p.BuildRemote(src, *src.List(), known);
  ASSERT_TRUE(second.has_value()) << second.error().ToString();
  EXPECT_EQ(src.paths_read, std::set<std::string>{"b.bin"});
  EXPECT_EQ(src.bytes_read, 2u << 20);
  EXPECT_EQ(second->cached_files, 1u);
  EXPECT_EQ(second->manifest.Find("a.bin")->sha256,
            Sha256::Of(src.files["a.bin"]));

  // A known entry whose chunks the store lost is read again.
  MemoryBlobStore empty;
  Publisher q(&empty, SmallBlocks());
  src.paths_read.clear();
  ASSERT_TRUE(q.BuildRemote(src, *src.List(), known).has_value());
  EXPECT_EQ(src.paths_read.size(), 2u);
}

TEST(RemoteBuildTest, AFileThatDoesNotHashToItsStatedSha256FailsTheBuild) {
  FakeSource src;
  src.files = {{"ok.bin", "fine"}, {"model.safetensors", RandomBytes(4, 3000)}};
  src.stated = {{"ok.bin", "fine"}, {"model.safetensors", "something else"}};
  MemoryBlobStore store;
  auto v = Publisher(&store, SmallBlocks()).BuildRemote(src, *src.List(), {});
  ASSERT_FALSE(v.has_value());
  EXPECT_EQ(v.error().code(), StatusCode::kCorruption);
  EXPECT_NE(v.error().message().find("'model.safetensors'"), std::string::npos)
      << v.error().message();
  EXPECT_NE(v.error().message().find("states"), std::string::npos);
}

TEST(RemoteBuildTest, HostileListingsAreRefusedBeforeAnythingIsRead) {
  struct Case {
    std::vector<RemoteEntry> entries;
    std::string says;
  };
  RemoteEntry file = Entry("a", EntryType::kFile, 4);
  RemoteEntry under = Entry("a/b", EntryType::kFile, 4);
  RemoteEntry up = Entry("../etc/passwd", EntryType::kFile, 4);
  RemoteEntry abs = Entry("/etc/passwd", EntryType::kFile, 4);
  RemoteEntry dot = Entry("x/./y", EntryType::kFile, 4);
  RemoteEntry escape = Entry("l", EntryType::kSymlink, 0);
  escape.target = "../../outside";
  std::vector<Case> cases = {
      {{file, file}, "twice"},    {{under, file}, "also listed as a file"},
      {{up}, "not a safe path"},  {{abs}, "not a safe path"},
      {{dot}, "not a safe path"}, {{escape}, "symlink"}};
  for (const auto& c : cases) {
    FakeSource src;
    MemoryBlobStore store;
    auto v = Publisher(&store, SmallBlocks()).BuildRemote(src, c.entries, {});
    ASSERT_FALSE(v.has_value()) << c.says;
    EXPECT_NE(v.error().message().find(c.says), std::string::npos)
        << v.error().message();
    EXPECT_TRUE(src.paths_read.empty());
    size_t blobs = 0;
    ASSERT_TRUE(store.List([&](const BlobInfo&) { ++blobs; }).ok());
    EXPECT_EQ(blobs, 0u);
  }
}

TEST(RemoteBuildTest, ReadErrorsAndShortReadsNameTheFile) {
  FakeSource src;
  src.files = {{"a.bin", RandomBytes(5, 3 << 20)}, {"b.bin", "bbbb"}};
  src.fail_path = "b.bin";
  MemoryBlobStore store;
  auto v = Publisher(&store, SmallBlocks()).BuildRemote(src, *src.List(), {});
  ASSERT_FALSE(v.has_value());
  EXPECT_EQ(v.error().code(), StatusCode::kUnavailable);
  EXPECT_NE(v.error().message().find("'b.bin' from fake://bucket"),
            std::string::npos)
      << v.error().message();

  src.fail_path.clear();
  src.shrink_path = "a.bin";
  v = Publisher(&store, SmallBlocks()).BuildRemote(src, *src.List(), {});
  ASSERT_FALSE(v.has_value());
  EXPECT_NE(v.error().message().find("'a.bin' changed"), std::string::npos)
      << v.error().message();
}

TEST(RangePrefetcherTest, TakesInOrderWithinTheWindow) {
  std::vector<RangeTask> tasks;
  for (size_t i = 0; i < 40; ++i) tasks.push_back({i, i * 10, 10});
  std::mutex mu;
  uint64_t in_flight = 0, peak = 0;
  RangePrefetcher pf(
      tasks,
      [&](const RangeTask& t) -> Result<std::string> {
        std::lock_guard<std::mutex> lock(mu);
        in_flight += t.length;
        peak = std::max(peak, in_flight);
        return std::to_string(t.file);
      },
      12, 50);  // without the window, 12 threads would hold up to 120
  for (size_t i = 0; i < tasks.size(); ++i) {
    auto r = pf.Take(i);
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(*r, std::to_string(i));
    std::lock_guard<std::mutex> lock(mu);
    in_flight -= 10;
  }
  // The test counts a taken task a moment after the prefetcher does, so it
  // may see one task more than the window.
  EXPECT_LE(peak, 60u);
  EXPECT_GE(peak, 20u);  // it did run ahead
}

TEST(RangePrefetcherTest, PassesErrorsThroughAndStopsCleanly) {
  std::vector<RangeTask> tasks;
  for (size_t i = 0; i < 100; ++i) tasks.push_back({i, 0, 1});
  std::atomic<int> calls{0};
  {
    RangePrefetcher pf(
        tasks,
        [&](const RangeTask& t) -> Result<std::string> {
          ++calls;
          if (t.file == 1) return Unavailable("boom");
          return std::string("x");
        },
        3, 4);
    EXPECT_TRUE(pf.Take(0).has_value());
    auto r = pf.Take(1);
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().message(), "boom");
  }  // destroyed with most tasks never taken: the window held them back
  EXPECT_LT(calls.load(), 100);
}

}  // namespace
}  // namespace sealvol
