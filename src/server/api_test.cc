// The registry API's rules, through Api::Handle (no sockets): auth, tenancy,
// verification of uploads and commits, tag compare-and-swap, bad input.
#include "server/api.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "format/envelope.h"
#include "hash/sha256.h"
#include "meta/sqlite_meta_store.h"
#include "store/memory_blob_store.h"

namespace sealvol::server {
namespace {

using json = nlohmann::json;

constexpr const char* kTokens =
    "writer-token-0123456789  writer  write:acme/*\n"
    "reader-token-0123456789  reader  read:acme/*\n"
    "other-token-0123456789   other   write:other/*\n"
    "admin-token-0123456789   root    admin:*\n";

class ApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    meta_ = std::move(*SqliteMetaStore::Open(":memory:"));
    tokens_ = *TokenTable::Parse(kTokens);
    api_ = std::make_unique<Api>(&blobs_, meta_.get(), &tokens_, &metrics_);
  }
  ApiResponse Call(const std::string& method, const std::string& target,
                   const std::string& token, std::string body = "",
                   std::string annotations = "") {
    // `token` names a line of kTokens ("writer"); empty sends none.
    ApiRequest req{method, target,
                   token.empty() ? "" : "Bearer " + token + "-token-0123456789",
                   std::move(annotations), std::move(body)};
    return api_->Handle(req);
  }
  // Uploads `content` as a blob of acme/m and returns its digest.
  Digest Upload(const std::string& content, const std::string& token) {
    Digest d = Sha256::Of(content);
    auto r = Call("PUT", "/v1/volumes/acme/m/blobs/" + d.ToString(), token,
                  EncodeEnvelope(content, CompressPolicy::kAuto));
    EXPECT_LT(r.status, 300) << r.body;
    return d;
  }
  // A one-file manifest whose file is `content`.
  static std::string ManifestOf(const std::string& content) {
    Manifest m;
    ManifestEntry e;
    e.path = "weights.bin";
    e.size = content.size();
    e.sha256 = Sha256::Of(content);
    m.entries = {e};
    return *SerializeManifest(m);
  }

  MemoryBlobStore blobs_;
  std::unique_ptr<SqliteMetaStore> meta_;
  TokenTable tokens_;
  Metrics metrics_;
  std::unique_ptr<Api> api_;
};

TEST_F(ApiTest, PublishFlowThroughTheApi) {
  std::string content = "model bytes";
  Digest blob = Sha256::Of(content);
  auto miss = Call("POST", "/v1/volumes/acme/m/blobs/missing", "writer",
                   json{{"digests", {blob.ToString()}}}.dump());
  ASSERT_EQ(miss.status, 200) << miss.body;
  EXPECT_EQ(json::parse(miss.body)["missing"].size(), 1u);
  Upload(content, "writer");
  miss = Call("POST", "/v1/volumes/acme/m/blobs/missing", "writer",
              json{{"digests", {blob.ToString()}}}.dump());
  EXPECT_TRUE(json::parse(miss.body)["missing"].empty());

  std::string m = ManifestOf(content);
  Digest v = Sha256::Of(m);
  auto commit = Call("PUT", "/v1/volumes/acme/m/versions/" + v.ToString(),
                     "writer", m, R"({"user":"ci"})");
  ASSERT_EQ(commit.status, 201) << commit.body;
  auto tag = Call("PUT", "/v1/volumes/acme/m/tags/prod", "writer",
                  json{{"digest", v.ToString()}, {"expect", nullptr}}.dump());
  ASSERT_EQ(tag.status, 200) << tag.body;

  auto man = Call("GET", "/v1/volumes/acme/m/manifests/prod", "reader");
  ASSERT_EQ(man.status, 200);
  EXPECT_EQ(man.body, m);
  auto blob_get =
      Call("GET", "/v1/volumes/acme/m/blobs/" + blob.ToString(), "reader");
  ASSERT_EQ(blob_get.status, 200);
  EXPECT_EQ(*DecodeEnvelope(blob_get.body, 1 << 20), content);

  auto vol = json::parse(Call("GET", "/v1/volumes/acme/m", "reader").body);
  EXPECT_EQ(vol["versions"][0]["annotations"]["registry_actor"], "writer");
  EXPECT_EQ(vol["versions"][0]["annotations"]["user"], "ci");
  EXPECT_EQ(vol["tags"][0]["digest"], v.ToString());
  auto hist = json::parse(
      Call("GET", "/v1/volumes/acme/m/tags/prod/history", "reader").body);
  EXPECT_EQ(hist["history"][0]["actor"], "writer");
  auto list = json::parse(Call("GET", "/v1/volumes", "other").body);
  EXPECT_TRUE(list["volumes"].empty());  // "other" may not see acme/*
  EXPECT_EQ(json::parse(Call("GET", "/v1/volumes", "reader").body)["volumes"],
            json::array({"acme/m"}));
}

TEST_F(ApiTest, AuthMatrix) {
  Digest blob = Upload("secret weights", "writer");
  std::string path = "/v1/volumes/acme/m/blobs/" + blob.ToString();
  EXPECT_EQ(Call("GET", path, "").status, 401);
  auto wrong = api_->Handle({"GET", path, "Bearer not-a-token-at-all", "", ""});
  EXPECT_EQ(wrong.status, 401);
  EXPECT_EQ(Call("GET", path, "reader").status, 200);
  EXPECT_EQ(Call("PUT", path, "reader",
                 EncodeEnvelope("secret weights", CompressPolicy::kNone))
                .status,
            403);
  EXPECT_EQ(Call("GET", path, "other").status, 403);  // acme/* not granted
  // Probing the blob by digest through the other tenant's own namespace.
  auto probe =
      Call("GET", "/v1/volumes/other/x/blobs/" + blob.ToString(), "other");
  EXPECT_EQ(probe.status, 404);
  auto miss = Call("POST", "/v1/volumes/other/x/blobs/missing", "other",
                   json{{"digests", {blob.ToString()}}}.dump());
  EXPECT_EQ(json::parse(miss.body)["missing"].size(), 1u);
  // Tag removal needs admin.
  std::string m = ManifestOf("secret weights");
  Digest v = Sha256::Of(m);
  ASSERT_EQ(
      Call("PUT", "/v1/volumes/acme/m/versions/" + v.ToString(), "writer", m)
          .status,
      201);
  ASSERT_EQ(Call("PUT", "/v1/volumes/acme/m/tags/t", "writer",
                 json{{"digest", v.ToString()}}.dump())
                .status,
            200);
  EXPECT_EQ(
      Call("PUT", "/v1/volumes/acme/m/tags/t", "writer", R"({"digest":null})")
          .status,
      403);
  EXPECT_EQ(
      Call("PUT", "/v1/volumes/acme/m/tags/t", "admin", R"({"digest":null})")
          .status,
      200);
  EXPECT_EQ(Call("GET", "/healthz", "").status, 200);
}

TEST_F(ApiTest, BadRequestsAreRefusedAndKeepNothing) {
  std::string content = "real bytes";
  Digest d = Sha256::Of(content);
  // A blob whose bytes are not its digest's.
  auto bad = Call("PUT", "/v1/volumes/acme/m/blobs/" + d.ToString(), "writer",
                  EncodeEnvelope("other bytes", CompressPolicy::kNone));
  EXPECT_EQ(bad.status, 400);
  EXPECT_FALSE(*blobs_.Has(d));
  // Garbage that is not an envelope at all.
  EXPECT_EQ(Call("PUT", "/v1/volumes/acme/m/blobs/" + d.ToString(), "writer",
                 "\x07garbage")
                .status,
            400);
  EXPECT_FALSE(*blobs_.Has(d));
  for (const char* target : {
           "/v1/volumes/acme/m/blobs/sha256:xyz",
           "/v1/volumes/acme/m/blobs/md5:abc",
           "/v1/volumes/acme/../m/blobs/missing",
           "/v1/volumes/acme/%2e%2e/m",
           "/v1/volumes/Acme/M",
           "/v1/volumes/acme//m",
           "/v1/volumes/acme/m/manifests/bad%zz",
       }) {
    auto r = Call("GET", target, "admin");
    EXPECT_EQ(r.status, 400) << target << " " << r.body;
  }
  // Bytes that are not UTF-8 in the path: quoted back, not a crash.
  auto junk = Call("GET", "\xeb\xeb/v1/volumes/acme/m", "admin");
  EXPECT_EQ(junk.status, 404);
  EXPECT_TRUE(json::parse(junk.body).contains("error"));
  EXPECT_EQ(Call("POST", "/v1/volumes/acme/m/blobs/missing", "writer", "{oops")
                .status,
            400);
  EXPECT_EQ(Call("POST", "/v1/volumes/acme/m/blobs/missing", "writer",
                 R"({"digests":["sha256:12"]})")
                .status,
            400);
  // Commits: a digest that is not the body's, a non-canonical manifest, a
  // manifest naming a blob never uploaded (409 listing it).
  std::string m = ManifestOf(content);
  Digest v = Sha256::Of(m);
  EXPECT_EQ(
      Call("PUT", "/v1/volumes/acme/m/versions/" + d.ToString(), "writer", m)
          .status,
      400);
  std::string spaced = " " + m;
  EXPECT_EQ(Call("PUT",
                 "/v1/volumes/acme/m/versions/" + Sha256::Of(spaced).ToString(),
                 "writer", spaced)
                .status,
            400);
  auto conflict =
      Call("PUT", "/v1/volumes/acme/m/versions/" + v.ToString(), "writer", m);
  EXPECT_EQ(conflict.status, 409);
  EXPECT_EQ(json::parse(conflict.body)["missing"], json::array({d.ToString()}));
  EXPECT_TRUE(meta_->ListVolumes()->empty());
  // A manifest whose one-blob file claims a size its blob does not have.
  Upload(content, "writer");
  Manifest lying;
  ManifestEntry e;
  e.path = "weights.bin";
  e.size = content.size() + 1;
  e.sha256 = d;
  lying.entries = {e};
  std::string lm = *SerializeManifest(lying);
  auto lie =
      Call("PUT", "/v1/volumes/acme/m/versions/" + Sha256::Of(lm).ToString(),
           "writer", lm);
  EXPECT_EQ(lie.status, 400) << lie.body;
  EXPECT_TRUE(meta_->ListVolumes()->empty());
  EXPECT_EQ(Call("PUT", "/v1/volumes/acme/m/versions/" + v.ToString(), "writer",
                 m, "[1,2]")
                .status,
            400);
  EXPECT_EQ(Api::BodyLimit("PUT", "/v1/volumes/a/tags/t"), kMaxSmallBody);
  EXPECT_EQ(Api::BodyLimit("PUT", "/v1/volumes/a/blobs/x"), kMaxEnvelopeSize);
  EXPECT_EQ(Api::BodyLimit("GET", "/v1/volumes/a"), 0u);
}

TEST_F(ApiTest, TagsMoveByCompareAndSwap) {
  Upload("one", "writer");
  Upload("two", "writer");
  Digest v1 = Sha256::Of(ManifestOf("one")), v2 = Sha256::Of(ManifestOf("two"));
  for (const auto& c : {std::string("one"), std::string("two")}) {
    std::string m = ManifestOf(c);
    ASSERT_EQ(
        Call("PUT", "/v1/volumes/acme/m/versions/" + Sha256::Of(m).ToString(),
             "writer", m)
            .status,
        201);
  }
  auto set = [&](const Digest& to, json expect) {
    return Call("PUT", "/v1/volumes/acme/m/tags/prod", "writer",
                json{{"digest", to.ToString()}, {"expect", expect}}.dump());
  };
  EXPECT_EQ(set(v1, nullptr).status, 200);
  auto lost = set(v2, nullptr);  // expected absent, but it is v1 now
  EXPECT_EQ(lost.status, 412);
  EXPECT_EQ(json::parse(lost.body)["current"], v1.ToString());
  EXPECT_EQ(set(v2, v1.ToString()).status, 200);
  EXPECT_EQ(set(v1, v1.ToString()).status, 412);
  auto hist = json::parse(
      Call("GET", "/v1/volumes/acme/m/tags/prod/history", "reader").body);
  EXPECT_EQ(hist["history"].size(), 2u);
  EXPECT_EQ(Call("PUT", "/v1/volumes/acme/m/tags/prod", "writer",
                 R"({"digest":"sha256:nope"})")
                .status,
            400);
  EXPECT_EQ(
      Call("PUT", "/v1/volumes/acme/m/tags/prod", "writer", "not json").status,
      400);
}

}  // namespace
TEST_F(ApiTest, DeploymentPinsNeedWriteAndShowOnlyReadableVolumes) {
  Upload("one", "writer");
  std::string m = ManifestOf("one");
  Digest v1 = Sha256::Of(m);
  ASSERT_EQ(
      Call("PUT", "/v1/volumes/acme/m/versions/" + v1.ToString(), "writer", m)
          .status,
      201);
  auto pin = [&](const std::string& token, const std::string& volume,
                 const Digest& d) {
    return Call("PUT", "/v1/deployments/chat-prod/pins", token,
                json{{"path", "/models/m"},
                     {"volume", volume},
                     {"digest", d.ToString()},
                     {"reason", "lock"}}
                    .dump());
  };
  EXPECT_EQ(pin("reader", "acme/m", v1).status, 403);
  EXPECT_EQ(pin("other", "acme/m", v1).status, 403);
  EXPECT_EQ(pin("writer", "acme/m", Sha256::Of("no such")).status, 404);
  EXPECT_EQ(pin("writer", "acme/m", v1).status, 200);
  EXPECT_EQ(Call("PUT", "/v1/deployments/chat-prod/pins", "writer",
                 R"({"path":"models/m","volume":"acme/m","digest":")" +
                     v1.ToString() + "\"}")
                .status,
            400);  // a relative mount path
  EXPECT_EQ(Call("PUT", "/v1/deployments/Bad_Name/pins", "writer", "{}").status,
            400);

  auto doc =
      json::parse(Call("GET", "/v1/deployments/chat-prod", "reader").body);
  ASSERT_EQ(doc["pins"].size(), 1u);
  EXPECT_EQ(doc["pins"][0]["digest"], v1.ToString());
  ASSERT_EQ(doc["history"].size(), 1u);
  EXPECT_EQ(doc["history"][0]["actor"], "writer");  // the token's name
  EXPECT_EQ(doc["history"][0]["reason"], "lock");
  // Another tenant sees the deployment without acme's pins.
  auto theirs =
      json::parse(Call("GET", "/v1/deployments/chat-prod", "other").body);
  EXPECT_TRUE(theirs["pins"].empty());
  EXPECT_TRUE(theirs["history"].empty());
  auto vol = json::parse(Call("GET", "/v1/volumes/acme/m", "reader").body);
  ASSERT_EQ(vol["pins"].size(), 1u);
  EXPECT_EQ(vol["pins"][0]["deployment"], "chat-prod");
}

// Sync jobs: who may start, read and cancel them, and what a request may
// carry. The source points at a closed port, so every job fails quickly.
TEST_F(ApiTest, SyncJobsAuthAndRequestRules) {
  EXPECT_EQ(Call("GET", "/v1/sync-jobs", "writer").status, 404);  // off
  setenv("HF_ENDPOINT", "http://127.0.0.1:1", 1);
  Registry registry(&blobs_, meta_.get());
  SyncRequest base;
  base.flags.s3.retry_for = std::chrono::milliseconds(0);
  SyncJobs jobs(&registry, base);
  api_->SetSyncJobs(&jobs);
  std::string good = R"({"source":"hf://acme/x","volume":"acme/x","tag":"t"})";
  EXPECT_EQ(Call("POST", "/v1/sync-jobs", "reader", good).status, 403);
  EXPECT_EQ(Call("POST", "/v1/sync-jobs", "other", good).status, 403);
  EXPECT_EQ(Call("POST", "/v1/sync-jobs", "", good).status, 401);
  for (const char* bad :
       {R"({"source":"hf://acme/x","volume":"acme/x","endpoint":"http://x"})",
        R"({"source":"hf://acme/x","volume":"acme/x","aws_secret":"s"})",
        R"({"volume":"acme/x"})", R"({"source":1,"volume":"acme/x"})",
        R"({"source":"/etc","volume":"acme/x"})",
        R"({"source":"file:///etc","volume":"acme/x"})",
        R"({"source":"hf://acme/x","volume":"acme/x","tag":"bad tag"})",
        R"({"source":"hf://acme/x","volume":"acme/x","include":"*"})",
        "not json"}) {
    auto r = Call("POST", "/v1/sync-jobs", "writer", bad);
    EXPECT_EQ(r.status, 400) << bad << " -> " << r.body;
  }
  auto started = Call("POST", "/v1/sync-jobs", "writer", good);
  ASSERT_EQ(started.status, 202) << started.body;
  std::string id = json::parse(started.body)["id"];
  EXPECT_EQ(json::parse(started.body)["actor"], "writer");
  EXPECT_EQ(Call("GET", "/v1/sync-jobs/" + id, "reader").status, 200);
  EXPECT_EQ(Call("GET", "/v1/sync-jobs/" + id, "other").status, 404);
  EXPECT_EQ(Call("DELETE", "/v1/sync-jobs/" + id, "reader").status, 403);
  EXPECT_EQ(Call("GET", "/v1/sync-jobs/nope", "writer").status, 404);
  EXPECT_EQ(json::parse(Call("GET", "/v1/sync-jobs", "other").body)["jobs"],
            json::array());
  EXPECT_EQ(
      json::parse(Call("GET", "/v1/sync-jobs", "reader").body)["jobs"].size(),
      1u);
  json job;
  for (int i = 0; i < 200; ++i) {
    job = json::parse(Call("GET", "/v1/sync-jobs/" + id, "reader").body);
    if (job["state"] == "failed") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(job["state"], "failed") << job.dump();
  EXPECT_EQ(job["error"]["code"], "unavailable") << job.dump();
  EXPECT_EQ(Call("GET", "/v1/volumes/acme/x/tags/t", "writer").status, 404);
  api_->SetSyncJobs(nullptr);
  unsetenv("HF_ENDPOINT");
}

}  // namespace sealvol::server
