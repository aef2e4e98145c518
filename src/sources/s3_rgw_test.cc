// SigV4 against a real S3 engine: Ceph's RADOS Gateway, started by
// tests/e2e/s3_sigv4_test.sh (S3_ENDPOINT, S3_ACCESS_KEY, S3_SECRET_KEY).
// The gateway checks every signature, so a signing mistake fails here.
#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>

#include "client/http_client.h"
#include "hash/sha256.h"
#include "sources/s3_client.h"
#include "sources/sigv4.h"

namespace sealvol {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

class RgwTest : public ::testing::Test {
 protected:
  void SetUp() override {
    endpoint_ = Env("S3_ENDPOINT");
    ASSERT_FALSE(endpoint_.empty())
        << "run through tests/e2e/s3_sigv4_test.sh (needs S3_ENDPOINT)";
    creds_ = {Env("S3_ACCESS_KEY"), Env("S3_SECRET_KEY"), ""};
    host_ = endpoint_.substr(endpoint_.find("://") + 3);
    HttpClientOptions o;
    o.base_url = endpoint_;
    o.retry_for = std::chrono::milliseconds(0);
    http_ = std::make_unique<HttpClient>(o);
  }

  // Signs and sends; `path` and `query` decoded.
  HttpResponse Send(const std::string& method, const std::string& path,
                    const HttpFields& query = {}, const std::string& body = "",
                    HttpFields headers = {},
                    const AwsCredentials* creds = nullptr,
                    const std::string& payload_hash = "") {
    SigV4Request r;
    r.method = method;
    r.host = host_;
    r.path = path;
    r.query = query;
    r.headers = headers;
    r.payload_sha256 =
        payload_hash.empty() ? Sha256::Of(body).Hex() : payload_hash;
    SigV4Scope scope{"us-east-1", "s3", AmzDate(time(nullptr))};
    HttpFields signed_headers = SignV4(r, creds ? *creds : creds_, scope);
    headers.insert(headers.end(), signed_headers.begin(), signed_headers.end());
    auto resp = http_->Send(method, RequestTarget(path, query), body, headers);
    EXPECT_TRUE(resp.has_value());
    return resp ? *resp : HttpResponse{};
  }

  std::string endpoint_, host_;
  AwsCredentials creds_;
  std::unique_ptr<HttpClient> http_;
};

TEST_F(RgwTest, SignedRequestsWorkAndBadOnesAreRefused) {
  ASSERT_EQ(Send("PUT", "/sigv4-test").status, 200);
  for (const char* key : {"models/a.bin", "models/b.bin", "models/c.bin",
                          "models/dir/a key+é.bin", "other.txt"}) {
    auto put = Send("PUT", std::string("/sigv4-test/") + key, {},
                    std::string("contents of ") + key);
    EXPECT_EQ(put.status, 200) << key << ": " << put.body;
  }
  auto range = Send("GET", "/sigv4-test/models/a.bin", {}, "",
                    {{"Range", "bytes=9-14"}});
  EXPECT_EQ(range.status, 206);
  EXPECT_EQ(range.body, "of mod");
  auto odd = Send("GET", "/sigv4-test/models/dir/a key+é.bin");
  EXPECT_EQ(odd.status, 200);
  EXPECT_EQ(odd.body, "contents of models/dir/a key+é.bin");

  // A listing in pages of two, under a prefix.
  auto page1 =
      Send("GET", "/sigv4-test/",
           {{"list-type", "2"}, {"max-keys", "2"}, {"prefix", "models/"}});
  ASSERT_EQ(page1.status, 200) << page1.body;
  EXPECT_NE(page1.body.find("<IsTruncated>true</IsTruncated>"),
            std::string::npos);
  size_t at = page1.body.find("<NextContinuationToken>");
  ASSERT_NE(at, std::string::npos);
  at += std::string("<NextContinuationToken>").size();
  std::string token = page1.body.substr(at, page1.body.find('<', at) - at);
  auto page2 = Send("GET", "/sigv4-test/",
                    {{"list-type", "2"},
                     {"max-keys", "2"},
                     {"prefix", "models/"},
                     {"continuation-token", token}});
  ASSERT_EQ(page2.status, 200) << page2.body;
  EXPECT_NE(page2.body.find("<Key>models/dir/a key+é.bin</Key>"),
            std::string::npos)
      << page2.body;
  EXPECT_EQ(page2.body.find("other.txt"), std::string::npos);

  // A wrong secret and a body that is not the one signed are refused.
  AwsCredentials wrong = creds_;
  wrong.secret_key = "not-the-secret";
  auto denied = Send("GET", "/sigv4-test/models/a.bin", {}, "", {}, &wrong);
  EXPECT_EQ(denied.status, 403);
  EXPECT_NE(denied.body.find("SignatureDoesNotMatch"), std::string::npos);
  auto tampered = Send("PUT", "/sigv4-test/x", {}, "real body", {}, nullptr,
                       Sha256::Of("other body").Hex());
  EXPECT_GE(tampered.status, 400);
  EXPECT_LT(tampered.status, 500);
}

TEST_F(RgwTest, PresignedUrlsWorkWithoutCredentialsUntilTampered) {
  ASSERT_EQ(Send("PUT", "/presign-test").status, 200);
  ASSERT_EQ(Send("PUT", "/presign-test/w.bin", {}, "weights").status, 200);
  SigV4Request r;
  r.host = host_;
  r.path = "/presign-test/w.bin";
  std::string q =
      PresignV4(r, creds_, {"us-east-1", "s3", AmzDate(time(nullptr))}, 300);
  auto ok = http_->Send("GET", "/presign-test/w.bin?" + q);
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(ok->status, 200);
  EXPECT_EQ(ok->body, "weights");
  std::string bad = q;
  bad.back() = bad.back() == '0' ? '1' : '0';
  auto refused = http_->Send("GET", "/presign-test/w.bin?" + bad);
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->status, 403);
}

TEST_F(RgwTest, S3ClientListsEveryPageReadsRangesAndNamesErrors) {
  ASSERT_EQ(Send("PUT", "/client-test").status, 200);
  for (int i = 0; i < 5; ++i) {
    std::string key = "/client-test/ckpt/shard-" + std::to_string(i);
    ASSERT_EQ(Send("PUT", key, {}, "shard " + std::to_string(i)).status, 200);
  }
  ASSERT_EQ(Send("PUT", "/client-test/elsewhere", {}, "x").status, 200);
  S3Options o;
  o.endpoint = endpoint_;
  o.creds = creds_;
  o.retry_for = std::chrono::milliseconds(0);
  S3Client client(o, "client-test");
  auto all = client.List("ckpt/", 2);  // three pages
  ASSERT_TRUE(all.has_value()) << all.error().ToString();
  ASSERT_EQ(all->size(), 5u);
  EXPECT_EQ((*all)[4].key, "ckpt/shard-4");
  EXPECT_EQ((*all)[4].size, 7u);
  EXPECT_EQ((*all)[4].etag.size(), 32u);
  auto part = client.GetRange("ckpt/shard-3", 2, 4);
  ASSERT_TRUE(part.has_value()) << part.error().ToString();
  EXPECT_EQ(*part, "ard ");
  // Reads are conditional on the listed ETag: a replaced object is refused.
  auto same = client.GetRange("ckpt/shard-3", 0, 4, (*all)[3].etag);
  ASSERT_TRUE(same.has_value()) << same.error().ToString();
  EXPECT_EQ(*same, "shar");
  auto replaced = client.GetRange("ckpt/shard-3", 0, 4, (*all)[2].etag);
  ASSERT_FALSE(replaced.has_value());
  EXPECT_EQ(replaced.error().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(replaced.error().message().find("changed while it was read"),
            std::string::npos);

  auto missing = client.GetRange("ckpt/none", 0, 4);
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code(), StatusCode::kNotFound);
  S3Options wrong = o;
  wrong.creds.secret_key = "not-the-secret";
  auto denied = S3Client(wrong, "client-test").List("ckpt/");
  ASSERT_FALSE(denied.has_value());
  EXPECT_EQ(denied.error().code(), StatusCode::kPermissionDenied);
  EXPECT_NE(denied.error().message().find("SignatureDoesNotMatch"),
            std::string::npos);
  EXPECT_EQ(denied.error().message().find("not-the-secret"), std::string::npos);
}

}  // namespace
}  // namespace sealvol
