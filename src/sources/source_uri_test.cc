#include "sources/source_uri.h"

#include <gtest/gtest.h>

namespace sealvol {
namespace {

TEST(SourceUriTest, EachScheme) {
  auto s = ParseSourceUri("s3://models/llama/8b");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->kind, SourceKind::kS3);
  EXPECT_EQ(s->bucket, "models");
  EXPECT_EQ(s->prefix, "llama/8b/");
  EXPECT_EQ(s->Uri(), "s3://models/llama/8b/");

  s = ParseSourceUri("r2://0123abcd/weights");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->account, "0123abcd");
  EXPECT_EQ(s->bucket, "weights");
  EXPECT_EQ(s->prefix, "");
  EXPECT_EQ(s->Uri(), "r2://0123abcd/weights/");

  s = ParseSourceUri("cw://ckpts/run-7/");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->scheme, "cw");
  EXPECT_EQ(s->prefix, "run-7/");

  s = ParseSourceUri("az://acct/container/a b/é");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->kind, SourceKind::kAzure);
  EXPECT_EQ(s->account, "acct");
  EXPECT_EQ(s->bucket, "container");
  EXPECT_EQ(s->prefix, "a b/é/");

  s = ParseSourceUri("gs://bkt");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->kind, SourceKind::kGcs);

  s = ParseSourceUri("hf://meta-llama/Llama-3.1-8B");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->kind, SourceKind::kHuggingFace);
  EXPECT_EQ(s->repo, "meta-llama/Llama-3.1-8B");
  EXPECT_EQ(s->repo_type, "models");
  EXPECT_EQ(s->revision, "main");

  s = ParseSourceUri("hf://datasets/acme/corpus@refs/pr/3");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->repo_type, "datasets");
  EXPECT_EQ(s->revision, "refs/pr/3");
  EXPECT_EQ(s->Uri(), "hf://datasets/acme/corpus@refs/pr/3");

  s = ParseSourceUri("./models");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->kind, SourceKind::kLocal);
  EXPECT_EQ(s->path, "./models");
}

TEST(SourceUriTest, CanonicalUrisParseBackToTheSameSpec) {
  for (const char* u : {"s3://b/p", "r2://a/b/c/d", "cw://b", "gs://b/x/y",
                        "az://a/c/p", "hf://o/n@v1.0", "hf://spaces/o/n"}) {
    auto s = ParseSourceUri(u);
    ASSERT_TRUE(s.has_value()) << u;
    auto again = ParseSourceUri(s->Uri());
    ASSERT_TRUE(again.has_value()) << s->Uri();
    EXPECT_EQ(*again, *s) << u;
  }
}

TEST(SourceUriTest, BadUrisSayWhatTheyShouldLookLike) {
  const std::pair<const char*, const char*> bad[] = {
      {"ftp://x/y", "hf://, s3://"},
      {"s3://", "s3://BUCKET"},
      {"s3://bad bucket/x", "s3://BUCKET"},
      {"r2://onlyaccount", "r2://ACCOUNT/BUCKET"},
      {"az://acct", "az://ACCOUNT/CONTAINER"},
      {"hf://justone", "hf://ORG/NAME"},
      {"hf://a/b/c", "hf://ORG/NAME"},
      {"hf://../b", "hf://ORG/NAME"},
      {"hf://a/b@", "REVISION"},
      {"hf://a/b@x..y", "REVISION"},
      {"hf://a/b@x y", "REVISION"},
      {"s3://b/a\nb", "control character"},
      {"file://relative", "file:///"},
      {"", "empty"}};
  for (const auto& [uri, says] : bad) {
    auto s = ParseSourceUri(uri);
    ASSERT_FALSE(s.has_value()) << uri;
    EXPECT_NE(s.error().message().find(says), std::string::npos)
        << uri << ": " << s.error().message();
  }
}

}  // namespace
}  // namespace sealvol
