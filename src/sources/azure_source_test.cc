#include "sources/azure_source.h"

#include <gtest/gtest.h>

namespace sealvol {
namespace {

TEST(AzureTest, StringToSignFollowsTheBlobServiceLayout) {
  std::string s = SharedKeyStringToSign(
      "GET",
      {{"x-ms-version", "2021-08-06"},
       {"X-MS-Date", "Wed, 02 Dec 2026 23:17:01 GMT"},
       {"x-ms-range", "bytes=0-9"},
       {"If-Match", "\"0x8D\""},
       {"Content-Length", "0"}},
      "acct", "/acct/models/a%20b",
      {{"comp", "list"}, {"Restype", "container"}, {"prefix", "a b/"}});
  EXPECT_EQ(s,
            "GET\n\n\n\n\n\n\n\n\"0x8D\"\n\n\n\n"
            "x-ms-date:Wed, 02 Dec 2026 23:17:01 GMT\n"
            "x-ms-range:bytes=0-9\nx-ms-version:2021-08-06\n"
            "/acct/acct/models/a%20b\ncomp:list\nprefix:a b/\n"
            "restype:container");
}

TEST(AzureTest, ListBlobsPagesAndEntities) {
  auto p = ParseListBlobs(
      "<?xml version=\"1.0\"?><EnumerationResults ContainerName=\"c\">"
      "<Prefix>p/</Prefix><Blobs><Blob><Name>p/a &amp; b</Name><Properties>"
      "<Etag>\"0x8DA\"</Etag><Content-Length>12</Content-Length></Properties>"
      "</Blob><Blob><Name>p/c</Name><Properties><Etag>0x8DB</Etag>"
      "<Content-Length>0</Content-Length></Properties></Blob></Blobs>"
      "<NextMarker>2!abc</NextMarker></EnumerationResults>");
  ASSERT_TRUE(p.has_value()) << p.error().ToString();
  ASSERT_EQ(p->blobs.size(), 2u);
  EXPECT_EQ(p->blobs[0].name, "p/a & b");
  EXPECT_EQ(p->blobs[0].etag, "0x8DA");
  EXPECT_EQ(p->blobs[0].size, 12u);
  EXPECT_EQ(p->blobs[1].etag, "0x8DB");
  EXPECT_EQ(p->next_marker, "2!abc");
  auto last = ParseListBlobs(
      "<EnumerationResults><Blobs /><NextMarker /></EnumerationResults>");
  ASSERT_TRUE(last.has_value());
  EXPECT_TRUE(last->blobs.empty());
  EXPECT_EQ(last->next_marker, "");
  for (const char* bad :
       {"<Error/>", "<EnumerationResults><Blobs><Blob><Name>x</Name>",
        "<EnumerationResults><Blob><Name>x</Name></Blob>",
        "<EnumerationResults><Blob><Name>x</Name><Content-Length>-1"
        "</Content-Length></Blob>"}) {
    EXPECT_FALSE(ParseListBlobs(bad).has_value()) << bad;
  }
}

TEST(AzureTest, ConnectionStrings) {
  auto kv = ParseConnectionString(
      "DefaultEndpointsProtocol=http;AccountName=dev;AccountKey=a2V5==;"
      "BlobEndpoint=http://127.0.0.1:10000/dev;");
  ASSERT_TRUE(kv.has_value());
  EXPECT_EQ((*kv)["AccountKey"], "a2V5==");
  EXPECT_EQ((*kv)["BlobEndpoint"], "http://127.0.0.1:10000/dev");
  EXPECT_FALSE(ParseConnectionString("AccountName").has_value());
  EXPECT_FALSE(ParseConnectionString("=x").has_value());
}

}  // namespace
}  // namespace sealvol
