// SigV4 against the examples AWS publishes for S3 (Signature Version 4,
// "Examples: signature calculations"): the example credentials, bucket
// `examplebucket`, 2013-05-24, us-east-1.
#include "sources/sigv4.h"

#include <gtest/gtest.h>

namespace sealvol {
namespace {

const AwsCredentials kCreds = {"AKIAIOSFODNN7EXAMPLE",
                               "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", ""};
const SigV4Scope kScope = {"us-east-1", "s3", "20130524T000000Z"};

std::string Field(const HttpFields& f, const std::string& name) {
  for (const auto& [k, v] : f) {
    if (k == name) return v;
  }
  return "";
}

TEST(SigV4Test, GetObjectWithRangeMatchesTheAwsExample) {
  SigV4Request r;
  r.host = "examplebucket.s3.amazonaws.com";
  r.path = "/test.txt";
  r.headers = {{"Range", "bytes=0-9"}};
  HttpFields h = SignV4(r, kCreds, kScope);
  EXPECT_EQ(Field(h, "x-amz-date"), "20130524T000000Z");
  EXPECT_EQ(Field(h, "Authorization"),
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/"
            "us-east-1/s3/aws4_request,SignedHeaders=host;range;"
            "x-amz-content-sha256;x-amz-date,Signature="
            "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST(SigV4Test, PresignedUrlMatchesTheAwsExample) {
  SigV4Request r;
  r.host = "examplebucket.s3.amazonaws.com";
  r.path = "/test.txt";
  std::string q = PresignV4(r, kCreds, kScope, 86400);
  EXPECT_EQ(q,
            "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential="
            "AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&"
            "X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&"
            "X-Amz-SignedHeaders=host&X-Amz-Signature="
            "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404");
}

TEST(SigV4Test, CanonicalRequestEncodesSortsAndTrims) {
  SigV4Request r;
  r.host = "h";
  r.path = "/b/a key+é";
  r.query = {{"prefix", "models/x y"}, {"list-type", "2"}};
  r.headers = {{"X-Amz-Meta-B", "  two   words "}};
  std::string c =
      CanonicalRequest(r, {{"host", "h"}, {"X-Amz-Meta-B", "  two   words "}});
  EXPECT_EQ(c,
            "GET\n/b/a%20key%2B%C3%A9\nlist-type=2&prefix=models%2Fx%20y\n"
            "host:h\nx-amz-meta-b:two words\n\nhost;x-amz-meta-b\n"
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  // A different secret gives a different signature (the test can fail).
  AwsCredentials other = kCreds;
  other.secret_key = "x";
  EXPECT_NE(Field(SignV4(r, kCreds, kScope), "Authorization"),
            Field(SignV4(r, other, kScope), "Authorization"));
  other.session_token = "tok";
  EXPECT_EQ(Field(SignV4(r, other, kScope), "x-amz-security-token"), "tok");
}

TEST(SigV4Test, TimesAndTargetsAreWrittenAsSigned) {
  EXPECT_EQ(AmzDate(1369353600), "20130524T000000Z");
  EXPECT_EQ(RequestTarget("/b/a key+é", {{"prefix", "m/x y"}, {"n", "2"}}),
            "/b/a%20key%2B%C3%A9?prefix=m%2Fx%20y&n=2");
  EXPECT_EQ(RequestTarget("", {}), "/");
}

}  // namespace
}  // namespace sealvol
