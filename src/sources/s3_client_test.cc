#include "sources/s3_client.h"

#include <gtest/gtest.h>

namespace sealvol {
namespace {

TEST(S3ListTest, ParsesPagesEntitiesAndChecksums) {
  auto page = ParseListObjectsV2(
      R"(<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
<Name>b</Name><Prefix>m/</Prefix><KeyCount>2</KeyCount><MaxKeys>2</MaxKeys>
<IsTruncated>true</IsTruncated><NextContinuationToken>t&amp;1</NextContinuationToken>
<Contents><Key>m/a &amp; b&#233;.bin</Key><LastModified>2026-01-01T00:00:00.000Z</LastModified>
<ETag>&quot;9b2cf535f27731c974343645a3985328&quot;</ETag><Size>10</Size>
<ChecksumSHA256>n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=</ChecksumSHA256></Contents>
<Contents><Key>m/c</Key><Size>0</Size></Contents></ListBucketResult>)");
  ASSERT_TRUE(page.has_value()) << page.error().ToString();
  EXPECT_TRUE(page->truncated);
  EXPECT_EQ(page->next_token, "t&1");
  ASSERT_EQ(page->objects.size(), 2u);
  EXPECT_EQ(page->objects[0].key, "m/a & b\xc3\xa9.bin");
  EXPECT_EQ(page->objects[0].size, 10u);
  EXPECT_EQ(page->objects[0].etag, "9b2cf535f27731c974343645a3985328");
  EXPECT_EQ(page->objects[0].checksum_sha256,
            "n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=");
  EXPECT_EQ(page->objects[1].size, 0u);
}

TEST(S3ListTest, RefusesWhatIsNotAListing) {
  const char* bad[] = {
      "<Error><Code>AccessDenied</Code></Error>",
      "<ListBucketResult><Contents><Key>k</Key></Contents></ListBucketResult>",
      "<ListBucketResult><Contents><Key>k</Key><Size>-1</Size></Contents>"
      "</ListBucketResult>",
      "<ListBucketResult><Contents><Key>a&bogus;</Key><Size>1</Size>"
      "</Contents></ListBucketResult>",
      "<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>",
      "<ListBucketResult><Contents><Key>k</Key><Size>1</Size>",
  };
  for (const char* x : bad) {
    auto page = ParseListObjectsV2(x);
    EXPECT_FALSE(page.has_value()) << x;
    if (!page) {
      EXPECT_EQ(page.error().code(), StatusCode::kCorruption);
    }
  }
}

TEST(S3TimeTest, ListingAndHeaderFormsAgree) {
  // 2026-12-03T02:41:04Z
  EXPECT_EQ(ParseS3Time("2026-12-03T02:41:04.000Z"), 1796265664);
  EXPECT_EQ(ParseS3Time("2026-12-03T02:41:04Z"), 1796265664);
  EXPECT_EQ(ParseS3Time("Thu, 03 Dec 2026 02:41:04 GMT"), 1796265664);
  EXPECT_EQ(ParseS3Time("1970-01-01T00:00:00Z"), 0);
  EXPECT_FALSE(ParseS3Time(""));
  EXPECT_FALSE(ParseS3Time("yesterday"));
  EXPECT_FALSE(ParseS3Time("2026-13-45"));
}

TEST(S3ClientTest, PresignedGetNamesTheObjectAndExpiry) {
  S3Options o;
  o.endpoint = "http://127.0.0.1:9000";
  o.creds = {"AKIDEXAMPLE", "secret", ""};
  S3Client client(o, "bucket");
  std::string url = client.PresignGet("reg/blobs/a b", 300, 1796265664);
  EXPECT_EQ(url.rfind("http://127.0.0.1:9000/bucket/reg/blobs/a%20b?", 0), 0u)
      << url;
  EXPECT_NE(url.find("X-Amz-Expires=300"), std::string::npos);
  EXPECT_NE(url.find("X-Amz-Date=20261203T024104Z"), std::string::npos);
  EXPECT_NE(url.find("X-Amz-Signature="), std::string::npos);
  EXPECT_EQ(url.find("secret"), std::string::npos);
  o.anonymous = true;
  EXPECT_EQ(S3Client(o, "bucket").PresignGet("k", 300, 0), "");
}

}  // namespace
}  // namespace sealvol
