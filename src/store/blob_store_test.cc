// The shared BlobStore suite: every implementation must pass it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <set>
#include <thread>

#include "format/envelope.h"
#include "hash/sha256.h"
#include "store/fault_injecting_blob_store.h"
#include "store/local_blob_store.h"
#include "store/memory_blob_store.h"
#include "store/s3_blob_store.h"

namespace sealvol {
namespace {

struct StoreFactory {
  std::string name;
  std::function<std::unique_ptr<BlobStore>(const std::string& dir)> make;
};

class BlobStoreSuite : public ::testing::TestWithParam<StoreFactory> {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sealvol-store-test-XXXXXX";
    dir_ = ::mkdtemp(tmpl);
    store_ = GetParam().make(dir_);
    ASSERT_NE(store_, nullptr);
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  std::string dir_;
  std::unique_ptr<BlobStore> store_;
};

TEST_P(BlobStoreSuite, PutGetHasDelete) {
  Digest d = Sha256::Of("hello");
  std::string env = EncodeEnvelope("hello", CompressPolicy::kNone);
  EXPECT_FALSE(*store_->Has(d));
  auto missing = store_->Get(d);
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->Keep(d).code(), StatusCode::kNotFound);
  EXPECT_TRUE(*store_->Put(d, env));
  EXPECT_TRUE(*store_->Has(d));
  EXPECT_EQ(*store_->Get(d), env);
  EXPECT_TRUE(store_->Keep(d).ok());
  EXPECT_TRUE(store_->Delete(d).ok());
  EXPECT_FALSE(*store_->Has(d));
  EXPECT_TRUE(store_->Delete(d).ok());  // idempotent
}

TEST_P(BlobStoreSuite, NeverRewritesAnExistingBlob) {
  Digest d = Sha256::Of("x");
  EXPECT_TRUE(*store_->Put(d, "first"));
  EXPECT_FALSE(*store_->Put(d, "second"));
  EXPECT_EQ(*store_->Get(d), "first");
}

TEST_P(BlobStoreSuite, ListsEveryBlobOnce) {
  std::set<Digest> want;
  for (int i = 0; i < 50; ++i) {
    Digest d = Sha256::Of(std::to_string(i));
    want.insert(d);
    ASSERT_TRUE(store_->Put(d, "v" + std::to_string(i)).has_value());
  }
  std::set<Digest> got;
  ASSERT_TRUE(store_
                  ->List([&](const BlobInfo& b) {
                    EXPECT_TRUE(got.insert(b.digest).second);
                    EXPECT_GT(b.stored_size, 0u);
                  })
                  .ok());
  EXPECT_EQ(got, want);
}

TEST_P(BlobStoreSuite, ConcurrentPutsOfOneBlobLeaveOneIntactCopy) {
  Digest d = Sha256::Of("race");
  std::string env(1 << 20, 'r');
  std::atomic<int> written{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] {
      auto r = store_->Put(d, env);
      ASSERT_TRUE(r.has_value());
      if (*r) ++written;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(written.load(), 1);
  EXPECT_EQ(*store_->Get(d), env);
}

TEST_P(BlobStoreSuite, KeepRefreshesTheAgeGcSees) {
  Digest d = Sha256::Of("aging");
  ASSERT_TRUE(*store_->Put(d, "old"));
  auto age = [&] {
    int64_t mtime = -1;
    EXPECT_TRUE(store_
                    ->List([&](const BlobInfo& b) {
                      if (b.digest == d) mtime = b.mtime;
                    })
                    .ok());
    return mtime;
  };
  int64_t first = age();
  EXPECT_NEAR(first, ::time(nullptr), 120);  // a clock on loopback
  // Second-resolution clocks (S3's Last-Modified): wait for the next one.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  if (auto* m = dynamic_cast<MemoryBlobStore*>(store_.get())) {
    m->set_now(::time(nullptr));  // its clock is the test's
  }
  ASSERT_TRUE(store_->Keep(d).ok());
  EXPECT_GT(age(), first);
  EXPECT_EQ(*store_->Get(d), "old");  // Keep changes the age, not the bytes
}

TEST_P(BlobStoreSuite, ConcurrentPutsOfManyBlobsAreAllReadable) {
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 25; ++i) {
        std::string body = "blob " + std::to_string(t * 100 + i);
        ASSERT_TRUE(store_->Put(Sha256::Of(body), body).has_value());
      }
    });
  }
  for (auto& t : threads) t.join();
  ASSERT_TRUE(store_->Sync().ok());
  std::vector<Digest> all;
  for (int t = 0; t < 4; ++t) {
    for (int i = 0; i < 25; ++i) {
      std::string body = "blob " + std::to_string(t * 100 + i);
      EXPECT_EQ(*store_->Get(Sha256::Of(body)), body);
      all.push_back(Sha256::Of(body));
    }
  }
  all.insert(all.begin() + 50, Sha256::Of("never stored"));
  auto missing = store_->Missing(all);
  ASSERT_TRUE(missing.has_value());
  EXPECT_EQ(*missing, std::vector<Digest>{Sha256::Of("never stored")});
  auto absent = store_->KeepAll(all);
  ASSERT_TRUE(absent.has_value());
  EXPECT_EQ(*absent, std::vector<Digest>{Sha256::Of("never stored")});
}

// Every implementation; S3BlobStore when a bucket is given (the e2e test
// stores_test.sh starts Ceph's RADOS Gateway and sets these), each test
// under a fresh prefix.
std::vector<StoreFactory> Factories() {
  std::vector<StoreFactory> out = {
      {"local",
       [](const std::string& dir) -> std::unique_ptr<BlobStore> {
         return std::move(*LocalBlobStore::Open(dir));
       }},
      {"memory", [](const std::string&) -> std::unique_ptr<BlobStore> {
         auto m = std::make_unique<MemoryBlobStore>();
         m->set_now(::time(nullptr));
         return m;
       }}};
  const char* endpoint = std::getenv("SEALVOL_TEST_S3_ENDPOINT");
  const char* bucket = std::getenv("SEALVOL_TEST_S3_BUCKET");
  if (endpoint != nullptr && bucket != nullptr) {
    out.push_back({"s3",
                   [endpoint, bucket](
                       const std::string& dir) -> std::unique_ptr<BlobStore> {
                     S3Options o;
                     o.endpoint = endpoint;
                     CredentialsFromEnvironment(&o);
                     std::string prefix =
                         "suite/" +
                         std::filesystem::path(dir).filename().string();
                     // refresh_after 0: every Keep refreshes, as the
                     // suite expects of every store.
                     auto s = S3BlobStore::Open(
                         std::string("s3://") + bucket + "/" + prefix, o, 0);
                     EXPECT_TRUE(s.has_value()) << s.error().message();
                     return s ? std::move(*s) : nullptr;
                   }});
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(AllStores, BlobStoreSuite,
                         ::testing::ValuesIn(Factories()),
                         [](const auto& info) { return info.param.name; });

// Keep's copy is skipped for a blob younger than refresh_after: re-publishing
// a model must not copy all of it inside the bucket.
TEST(S3BlobStoreTest, KeepCopiesOnlyBlobsOlderThanRefreshAfter) {
  const char* endpoint = std::getenv("SEALVOL_TEST_S3_ENDPOINT");
  const char* bucket = std::getenv("SEALVOL_TEST_S3_BUCKET");
  if (endpoint == nullptr || bucket == nullptr) {
    GTEST_SKIP()
        << "needs SEALVOL_TEST_S3_ENDPOINT (tests/e2e/scale_out_test.sh)";
  }
  S3Options o;
  o.endpoint = endpoint;
  CredentialsFromEnvironment(&o);
  auto store = S3BlobStore::Open(
      std::string("s3://") + bucket + "/refresh-" + std::to_string(::getpid()),
      o, 3);
  ASSERT_TRUE(store.has_value()) << store.error().message();
  Digest d = Sha256::Of("refresh");
  ASSERT_TRUE(*(*store)->Put(d, "r"));
  auto age = [&] {
    int64_t mtime = -1;
    EXPECT_TRUE((*store)
                    ->List([&](const BlobInfo& b) {
                      if (b.digest == d) mtime = b.mtime;
                    })
                    .ok());
    return mtime;
  };
  int64_t first = age();
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  ASSERT_TRUE((*store)->Keep(d).ok());
  EXPECT_EQ(age(), first);  // young: not copied
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  ASSERT_TRUE((*store)->Keep(d).ok());
  EXPECT_GT(age(), first);  // older than 3 s: refreshed
  EXPECT_EQ((*store)->Keep(Sha256::Of("absent")).code(), StatusCode::kNotFound);
}

TEST(LocalBlobStoreTest, UsesTheSpecifiedLayoutAndCleansTempFiles) {
  char tmpl[] = "/tmp/sealvol-local-test-XXXXXX";
  std::string dir = ::mkdtemp(tmpl);
  auto store = std::move(*LocalBlobStore::Open(dir));
  Digest d = Sha256::Of("abc");
  ASSERT_TRUE(store->Put(d, "x").has_value());
  std::string hex = d.Hex();
  std::string final_path =
      dir + "/blobs/sha256/" + hex.substr(0, 2) + "/" + hex;
  // Visible to this store at once, under its final name after Sync.
  EXPECT_TRUE(*store->Has(d));
  EXPECT_FALSE(std::filesystem::exists(final_path));
  ASSERT_TRUE(store->Sync().ok());
  EXPECT_TRUE(std::filesystem::exists(dir + "/blobs/sha256/" +
                                      hex.substr(0, 2) + "/" + hex));
  // A writer killed mid-put leaves a temp file: List ignores it and
  // CollectTemp removes it.
  std::string tmp = dir + "/blobs/sha256/ab/.tmp-123-0-0";
  { std::ofstream(tmp) << "partial"; }
  int listed = 0;
  ASSERT_TRUE(store->List([&](const BlobInfo&) { ++listed; }).ok());
  EXPECT_EQ(listed, 1);
  EXPECT_EQ(*store->CollectTemp(3600), 0u);  // too young
  EXPECT_EQ(*store->CollectTemp(0), 1u);
  EXPECT_FALSE(std::filesystem::exists(tmp));
  std::filesystem::remove_all(dir);
}

TEST(FaultInjectingBlobStoreTest, FailsFromTheNthCallUntilHealed) {
  MemoryBlobStore base;
  FaultInjectingBlobStore store(&base);
  store.FailFromCall(3, Unavailable("down"));
  Digest d = Sha256::Of("a");
  EXPECT_TRUE(store.Put(d, "a").has_value());
  EXPECT_TRUE(store.Has(d).has_value());
  auto r = store.Get(d);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), StatusCode::kUnavailable);
  EXPECT_FALSE(store.Has(d).has_value());
  store.Heal();
  EXPECT_TRUE(store.Get(d).has_value());
}

}  // namespace
}  // namespace sealvol

namespace sealvol {
namespace {

TEST(LocalBlobStoreTest,
     UnsyncedBlobsVanishWithTheStoreAndBatchesSyncThemselves) {
  char tmpl[] = "/tmp/sealvol-local-test-XXXXXX";
  std::string dir = ::mkdtemp(tmpl);
  Digest a = Sha256::Of("a");
  {
    auto store = std::move(*LocalBlobStore::Open(dir));
    ASSERT_TRUE(*store->Put(a, "aaaa"));
    EXPECT_EQ(*store->Get(a), "aaaa");
  }  // dropped without Sync: an abandoned publish leaves nothing
  auto other = std::move(*LocalBlobStore::Open(dir));
  EXPECT_FALSE(*other->Has(a));
  size_t files = 0;
  for (auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    files += e.is_regular_file();
  }
  EXPECT_EQ(files, 0u);

  // With a 10-byte batch, the second Put crosses it and syncs both.
  auto small = std::move(*LocalBlobStore::Open(dir, 10));
  Digest b = Sha256::Of("b");
  ASSERT_TRUE(*small->Put(a, "123456"));
  ASSERT_TRUE(*small->Put(b, "123456"));
  auto reader = std::move(*LocalBlobStore::Open(dir));
  EXPECT_TRUE(*reader->Has(a));
  EXPECT_TRUE(*reader->Has(b));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sealvol
