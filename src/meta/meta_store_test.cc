// The shared MetaStore suite: SqliteMetaStore in a file, and PgMetaStore in
// a fresh database per test when SEALVOL_TEST_PG names a server
// (tests/e2e/stores_test.sh starts one and sets it).
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <thread>

#include "hash/sha256.h"
#include "meta/pg_conn.h"
#include "meta/pg_meta_store.h"
#include "meta/sqlite_meta_store.h"

namespace sealvol {
namespace {

// Opens one more handle on the test's store (another connection, standing
// in for another process or replica).
using Opener = std::function<std::unique_ptr<MetaStore>()>;

struct MetaFactory {
  std::string name;
  // Makes a fresh, empty store for one test in `dir`; returns its opener.
  std::function<Opener(const std::string& dir)> make;
};

std::vector<MetaFactory> Factories() {
  std::vector<MetaFactory> out = {
      {"sqlite", [](const std::string& dir) -> Opener {
         return [dir]() -> std::unique_ptr<MetaStore> {
           auto s = SqliteMetaStore::Open(dir + "/meta.db");
           EXPECT_TRUE(s.has_value()) << s.error().message();
           return s ? std::move(*s) : nullptr;
         };
       }}};
  const char* base = std::getenv("SEALVOL_TEST_PG");  // a server's URL/
  if (base != nullptr) {
    out.push_back(
        {"postgres", [base](const std::string& dir) -> Opener {
           std::string db =
               "t_" + std::filesystem::path(dir).filename().string();
           for (char& c : db) c = std::isalnum(c) ? std::tolower(c) : '_';
           auto admin = pg::PgPool::Open(std::string(base) + "postgres");
           EXPECT_TRUE(admin.has_value()) << admin.error().message();
           if (admin) {
             auto conn = (*admin)->Acquire();
             EXPECT_TRUE(conn.has_value());
             if (conn) {
               EXPECT_TRUE((*conn)->Exec("CREATE DATABASE " + db).has_value());
             }
           }
           std::string url = std::string(base) + db;
           return [url]() -> std::unique_ptr<MetaStore> {
             auto s = PgMetaStore::Open(url);
             EXPECT_TRUE(s.has_value()) << s.error().message();
             return s ? std::move(*s) : nullptr;
           };
         }});
  }
  return out;
}

class MetaStoreTest : public ::testing::TestWithParam<MetaFactory> {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sealvol-meta-test-XXXXXX";
    dir_ = ::mkdtemp(tmpl);
    open_ = GetParam().make(dir_);
    meta_ = open_();
    ASSERT_NE(meta_, nullptr);
  }
  void TearDown() override {
    meta_.reset();
    std::filesystem::remove_all(dir_);
  }
  VersionRecord Version(const std::string& volume, const std::string& seed) {
    VersionRecord v;
    v.volume = volume;
    v.digest = Sha256::Of(seed);
    v.files = 3;
    v.bytes = 100;
    v.annotations = R"({"user":"ci"})";
    return v;
  }
  std::string dir_;
  Opener open_;
  std::unique_ptr<MetaStore> meta_;
};

TEST_P(MetaStoreTest, VersionsAndVolumes) {
  EXPECT_EQ(meta_->ListVersions("acme/m").error().code(),
            StatusCode::kNotFound);
  ASSERT_TRUE(meta_->AddVersion(Version("acme/m", "v1")).ok());
  ASSERT_TRUE(meta_->AddVersion(Version("acme/m", "v2")).ok());
  ASSERT_TRUE(meta_->AddVersion(Version("acme/m", "v1")).ok());  // idempotent
  ASSERT_TRUE(meta_->AddVersion(Version("other/x", "v1")).ok());
  auto versions = meta_->ListVersions("acme/m");
  ASSERT_TRUE(versions.has_value());
  ASSERT_EQ(versions->size(), 2u);
  EXPECT_EQ((*versions)[0].digest, Sha256::Of("v1"));
  EXPECT_EQ((*versions)[1].digest, Sha256::Of("v2"));
  EXPECT_EQ((*versions)[0].annotations, R"({"user":"ci"})");
  EXPECT_EQ(*meta_->ListVolumes(),
            (std::vector<std::string>{"acme/m", "other/x"}));
  EXPECT_TRUE(meta_->GetVersion("acme/m", Sha256::Of("v2")).has_value());
  EXPECT_EQ(meta_->GetVersion("other/x", Sha256::Of("v2")).error().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(meta_->AllVersionDigests()->size(), 2u);  // distinct digests
}

TEST_P(MetaStoreTest, TagsMoveByCompareAndSwapWithHistory) {
  Digest v1 = Sha256::Of("v1"), v2 = Sha256::Of("v2");
  ASSERT_TRUE(meta_->AddVersion(Version("acme/m", "v1")).ok());
  ASSERT_TRUE(meta_->AddVersion(Version("acme/m", "v2")).ok());
  EXPECT_EQ(meta_->GetTag("acme/m", "prod").error().code(),
            StatusCode::kNotFound);
  ASSERT_TRUE(
      meta_->MoveTag("acme/m", "prod", v1, TagExpect::Absent(), "ann", "first")
          .ok());
  Status again =
      meta_->MoveTag("acme/m", "prod", v2, TagExpect::Absent(), "bob", "");
  EXPECT_EQ(again.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(again.message().find(v1.ToString()), std::string::npos);
  Status wrong =
      meta_->MoveTag("acme/m", "prod", v2, TagExpect::Is(v2), "bob", "");
  EXPECT_EQ(wrong.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(*meta_->GetTag("acme/m", "prod"), v1);  // unchanged
  ASSERT_TRUE(
      meta_->MoveTag("acme/m", "prod", v2, TagExpect::Is(v1), "bob", "promote")
          .ok());
  EXPECT_EQ(*meta_->GetTag("acme/m", "prod"), v2);
  // Moving to the same digest records nothing.
  ASSERT_TRUE(
      meta_->MoveTag("acme/m", "prod", v2, TagExpect::Any(), "x", "").ok());
  // A tag can only point at a version of its volume.
  EXPECT_EQ(meta_
                ->MoveTag("acme/m", "prod", Sha256::Of("zz"), TagExpect::Any(),
                          "x", "")
                .code(),
            StatusCode::kNotFound);
  ASSERT_TRUE(meta_
                  ->MoveTag("acme/m", "prod", std::nullopt, TagExpect::Any(),
                            "carol", "retire")
                  .ok());
  EXPECT_EQ(meta_->GetTag("acme/m", "prod").error().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(
      meta_->MoveTag("acme/m", "prod", std::nullopt, TagExpect::Any(), "c", "")
          .code(),
      StatusCode::kNotFound);
  auto h = meta_->TagHistory("acme/m", "prod");
  ASSERT_TRUE(h.has_value());
  ASSERT_EQ(h->size(), 3u);
  EXPECT_FALSE((*h)[0].from.has_value());
  EXPECT_EQ((*h)[0].to, v1);
  EXPECT_EQ((*h)[0].actor, "ann");
  EXPECT_EQ((*h)[1].from, v1);
  EXPECT_EQ((*h)[1].to, v2);
  EXPECT_EQ((*h)[1].note, "promote");
  EXPECT_EQ((*h)[2].from, v2);
  EXPECT_FALSE((*h)[2].to.has_value());
}

// Separate connections stand in for separate processes: each round, every
// writer tries to move the tag from the value it read; exactly one wins.
TEST_P(MetaStoreTest, ConcurrentCompareAndSwapHasOneWinnerPerRound) {
  constexpr int kWriters = 4, kRounds = 20;
  for (int i = 0; i < kWriters; ++i) {
    ASSERT_TRUE(
        meta_->AddVersion(Version("acme/m", "w" + std::to_string(i))).ok());
  }
  ASSERT_TRUE(meta_
                  ->MoveTag("acme/m", "t", Sha256::Of("w0"), TagExpect::Any(),
                            "init", "")
                  .ok());
  std::vector<std::unique_ptr<MetaStore>> conns;
  for (int i = 0; i < kWriters; ++i) conns.push_back(open_());
  std::atomic<int> wins{0};
  for (int round = 0; round < kRounds; ++round) {
    Digest current = *meta_->GetTag("acme/m", "t");
    std::vector<std::thread> threads;
    for (int i = 0; i < kWriters; ++i) {
      threads.emplace_back([&, i] {
        Digest to = Sha256::Of("w" + std::to_string((i + round) % kWriters));
        if (to == current)
          to = Sha256::Of("w" + std::to_string((i + round + 1) % kWriters));
        Status s = conns[i]->MoveTag("acme/m", "t", to, TagExpect::Is(current),
                                     "w" + std::to_string(i), "");
        if (s.ok())
          ++wins;
        else
          EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << s.ToString();
      });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(wins.exchange(0), 1) << "round " << round;
  }
  EXPECT_EQ(meta_->TagHistory("acme/m", "t")->size(), 1u + kRounds);
}

TEST_P(MetaStoreTest, PinsMoveWithHistoryPerDeploymentPath) {
  ASSERT_TRUE(meta_->AddVersion(Version("acme/m", "v1")).ok());
  ASSERT_TRUE(meta_->AddVersion(Version("acme/m", "v2")).ok());
  ASSERT_TRUE(meta_->AddVersion(Version("acme/tok", "t1")).ok());
  Digest v1 = Sha256::Of("v1"), v2 = Sha256::Of("v2");
  EXPECT_TRUE(meta_->ListPins("chat")->empty());
  ASSERT_TRUE(meta_->SetPin("chat", "/m", "acme/m", v1, "ann", "lock").ok());
  ASSERT_TRUE(meta_->SetPin("chat", "/m", "acme/m", v1, "ann", "up").ok());
  ASSERT_TRUE(meta_->SetPin("chat", "/m", "acme/m", v2, "bob", "lock").ok());
  ASSERT_TRUE(
      meta_->SetPin("chat", "/tok", "acme/tok", Sha256::Of("t1"), "b", "up")
          .ok());
  ASSERT_TRUE(meta_->SetPin("batch", "/m", "acme/m", v1, "c", "lock").ok());
  // A version of another volume cannot be pinned under this one.
  EXPECT_EQ(
      meta_->SetPin("chat", "/m", "acme/m", Sha256::Of("t1"), "x", "").code(),
      StatusCode::kNotFound);

  auto pins = meta_->ListPins("chat");
  ASSERT_EQ(pins->size(), 2u);
  EXPECT_EQ((*pins)[0].path, "/m");
  EXPECT_EQ((*pins)[0].digest, v2);
  EXPECT_EQ((*pins)[1].volume, "acme/tok");

  auto history = meta_->PinHistory("chat");
  ASSERT_EQ(history->size(), 3u);  // the repeated pin recorded nothing
  EXPECT_FALSE((*history)[0].from.has_value());
  EXPECT_EQ((*history)[1].from, v1);
  EXPECT_EQ((*history)[1].to, v2);
  EXPECT_EQ((*history)[1].actor, "bob");
  EXPECT_EQ((*history)[1].reason, "lock");

  auto of_m = meta_->PinsOfVolume("acme/m");
  ASSERT_EQ(of_m->size(), 2u);
  EXPECT_EQ((*of_m)[0].deployment, "batch");
  EXPECT_EQ((*of_m)[0].digest, v1);
  EXPECT_EQ((*of_m)[1].deployment, "chat");
}

TEST_P(MetaStoreTest, LinksAreKeptPerNamespace) {
  Digest a = Sha256::Of("a"), b = Sha256::Of("b"), c = Sha256::Of("c");
  ASSERT_TRUE(meta_->LinkBlobs("acme", {a, b}).ok());
  ASSERT_TRUE(meta_->LinkBlobs("acme", {a}).ok());  // idempotent
  ASSERT_TRUE(meta_->LinkBlobs("other", {c}).ok());
  auto acme = meta_->UnlinkedBlobs("acme", {c, a, b});
  ASSERT_TRUE(acme.has_value()) << acme.error().ToString();
  EXPECT_EQ(*acme, std::vector<Digest>{c});
  auto other = meta_->UnlinkedBlobs("other", {a, b, c});
  ASSERT_TRUE(other.has_value());
  EXPECT_EQ(*other, (std::vector<Digest>{a, b}));
  EXPECT_EQ(*meta_->UnlinkedBlobs("nobody", {a}), std::vector<Digest>{a});
}

TEST_P(MetaStoreTest, OneGarbageCollectorAtATime) {
  auto other = open_();  // another process or replica
  ASSERT_NE(other, nullptr);
  auto lease = meta_->LockGc();
  ASSERT_TRUE(lease.has_value()) << lease.error().message();
  auto second = other->LockGc();
  ASSERT_FALSE(second.has_value());
  EXPECT_EQ(second.error().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(second.error().message().find("another gc"), std::string::npos);
  lease->reset();  // the first collector ends
  auto third = other->LockGc();
  EXPECT_TRUE(third.has_value());
}

// A fresh database: refused without migrating (naming the way to migrate),
// migrated by a normal open, then accepted as it is.
TEST(PgMetaStoreTest, MigratesOnOpenAndRefusesWithoutMigrate) {
  const char* base = std::getenv("SEALVOL_TEST_PG");
  if (base == nullptr) {
    GTEST_SKIP() << "needs SEALVOL_TEST_PG (tests/e2e/scale_out_test.sh)";
  }
  std::string db = "migrate_" + std::to_string(::getpid());
  auto admin = pg::PgPool::Open(std::string(base) + "postgres");
  ASSERT_TRUE(admin.has_value()) << admin.error().message();
  auto conn = (*admin)->Acquire();  // outside a transaction, as it must be
  ASSERT_TRUE(conn.has_value());
  ASSERT_TRUE((*conn)->Exec("CREATE DATABASE " + db).has_value());
  std::string url = std::string(base) + db;
  auto refused = PgMetaStore::Open(url, /*migrate=*/false);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.error().message().find("--migrate"), std::string::npos);
  auto store = PgMetaStore::Open(url);
  ASSERT_TRUE(store.has_value()) << store.error().message();
  EXPECT_EQ(*(*store)->SchemaVersion(), PgMetaStore::LatestSchema());
  EXPECT_TRUE(PgMetaStore::Open(url, /*migrate=*/false).has_value());
}

INSTANTIATE_TEST_SUITE_P(AllMetaStores, MetaStoreTest,
                         ::testing::ValuesIn(Factories()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace sealvol
