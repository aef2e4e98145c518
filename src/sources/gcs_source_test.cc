#include "sources/gcs_source.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "base/base64.h"

namespace sealvol {
namespace {

TEST(GcsTest, ListPagesSizesAndGenerations) {
  auto p = ParseGcsList(
      R"({"kind":"storage#objects","items":[
        {"name":"p/a b","size":"12","generation":"1700000000000000"},
        {"name":"p/c","size":3}],"nextPageToken":"tok"})");
  ASSERT_TRUE(p.has_value()) << p.error().ToString();
  ASSERT_EQ(p->objects.size(), 2u);
  EXPECT_EQ(p->objects[0].name, "p/a b");
  EXPECT_EQ(p->objects[0].size, 12u);
  EXPECT_EQ(p->objects[0].generation, "1700000000000000");
  EXPECT_EQ(p->objects[1].size, 3u);
  EXPECT_EQ(p->next_page_token, "tok");
  EXPECT_TRUE(ParseGcsList(R"({"kind":"storage#objects"})")->objects.empty());
  for (const char* bad :
       {"[]", "nope", R"({"items":{}})", R"({"items":[{"name":"a"}]})",
        R"({"items":[{"name":"","size":"1"}]})",
        R"({"items":[{"name":"a","size":"-1"}]})",
        R"({"items":[{"name":"a","size":"1","generation":"x"}]})",
        R"({"nextPageToken":3})"}) {
    EXPECT_FALSE(ParseGcsList(bad).has_value()) << bad;
  }
}

TEST(GcsTest, ServiceAccountAssertionNeedsAKeyFile) {
  for (const char* bad :
       {"{}", "not json", R"({"client_email":"a","private_key":"k"})",
        R"({"client_email":"a","private_key":"k","token_uri":"file:///x"})"}) {
    auto a = ServiceAccountAssertion(bad, 1700000000);
    ASSERT_FALSE(a.has_value()) << bad;
  }
  auto a = ServiceAccountAssertion(
      R"({"client_email":"a@b","private_key":"not pem","token_uri":"https://t/token"})",
      1700000000);
  ASSERT_FALSE(a.has_value());
  EXPECT_EQ(a.error().message().find("not pem"), std::string::npos);
}

}  // namespace
}  // namespace sealvol
