#include "sources/hf_source.h"

#include <gtest/gtest.h>

namespace sealvol {
namespace {

TEST(HfTreeTest, FilesLfsAndDirectories) {
  auto t = ParseHfTree(R"([
    {"type":"directory","oid":"ab","path":"tokenizer","size":0},
    {"type":"file","oid":"0123","path":"config.json","size":17},
    {"type":"file","oid":"4567","path":"model.safetensors","size":5000,
     "lfs":{"oid":")" + std::string(64, 'a') +
                       R"(","size":5000,"pointerSize":134}}])");
  ASSERT_TRUE(t.has_value()) << t.error().ToString();
  ASSERT_EQ(t->size(), 3u);
  EXPECT_EQ((*t)[0].type, "directory");
  EXPECT_EQ((*t)[1].oid, "0123");
  EXPECT_EQ((*t)[1].lfs_oid, "");
  EXPECT_EQ((*t)[2].size, 5000u);
  EXPECT_EQ((*t)[2].lfs_oid, std::string(64, 'a'));
}

TEST(HfTreeTest, RefusesMalformedListings) {
  for (const char* bad :
       {"{}", "[1]", R"([{"type":"file","path":"a"}])",
        R"([{"type":"file","path":"a","size":-1}])",
        R"([{"type":"link","path":"a","size":1}])",
        R"([{"type":"file","path":"a","size":1,"lfs":{"oid":"xyz"}}])",
        R"([{"type":"file","path":"a","size":1,"lfs":{"oid":")"
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
        R"(","size":2}}])",
        "[", "not json"}) {
    EXPECT_FALSE(ParseHfTree(bad).has_value()) << bad;
  }
}

TEST(HfTreeTest, LinkNext) {
  EXPECT_EQ(LinkNext(R"(<https://hub/api/x?cursor=abc>; rel="next")"),
            "https://hub/api/x?cursor=abc");
  EXPECT_EQ(
      LinkNext(R"(<https://a/prev>; rel="prev", <https://a/n>; rel="next")"),
      "https://a/n");
  EXPECT_FALSE(LinkNext(R"(<https://a/prev>; rel="prev")").has_value());
  EXPECT_FALSE(LinkNext("garbage").has_value());
}

TEST(HfRedirectTest, LinkLocalAndMetadataHostsAreForbidden) {
  for (const char* h :
       {"169.254.169.254", "169.254.0.1", "fe80::1", "::ffff:169.254.10.10",
        "fd00:ec2::254", "metadata.google.internal", ""}) {
    EXPECT_TRUE(IsForbiddenRedirectHost(h)) << h;
  }
  for (const char* h :
       {"127.0.0.1", "localhost", "10.0.0.1", "::1", "170.254.0.1"}) {
    EXPECT_FALSE(IsForbiddenRedirectHost(h)) << h;
  }
}

}  // namespace
}  // namespace sealvol
