#include "server/auth.h"

#include <gtest/gtest.h>

#include "hash/sha256.h"

namespace sealvol::server {
namespace {

TEST(TokenTableTest, ParsesGrantsAndChecksPatterns) {
  std::string hashed =
      Sha256::Of(std::string("ci-token-0123456789")).ToString();
  auto t = TokenTable::Parse(
      "# comment line\n"
      "alice-token-0123456789  alice  write:acme/*  read:public/*\n"
      "\n" +
      hashed + "  ci  admin:*   # trailing comment\n");
  ASSERT_TRUE(t.has_value()) << t.error().ToString();
  EXPECT_EQ(t->size(), 2u);
  auto alice = t->Authenticate("Bearer alice-token-0123456789");
  ASSERT_TRUE(alice.has_value());
  EXPECT_EQ(alice->name, "alice");
  EXPECT_TRUE(alice->Allows(Access::kWrite, "acme/llama"));
  EXPECT_TRUE(alice->Allows(Access::kRead, "acme/a/b"));
  EXPECT_FALSE(alice->Allows(Access::kAdmin, "acme/llama"));
  EXPECT_TRUE(alice->Allows(Access::kRead, "public/x"));
  EXPECT_FALSE(alice->Allows(Access::kWrite, "public/x"));
  EXPECT_FALSE(alice->Allows(Access::kRead, "acme"));  // pattern is acme/*
  EXPECT_FALSE(alice->Allows(Access::kRead, "other/x"));
  auto ci = t->Authenticate("Bearer ci-token-0123456789");
  ASSERT_TRUE(ci.has_value());
  EXPECT_TRUE(ci->Allows(Access::kAdmin, "anything/at/all"));

  EXPECT_FALSE(t->Authenticate("").has_value());
  EXPECT_FALSE(t->Authenticate("Bearer wrong-token-0123456789").has_value());
  EXPECT_FALSE(t->Authenticate("Basic alice-token-0123456789").has_value());
  EXPECT_FALSE(t->Authenticate("Bearer " + hashed).has_value());
}

TEST(TokenTableTest, RejectsMalformedLinesNamingThem) {
  struct Case {
    const char* text;
    const char* want;
  } cases[] = {
      {"tok-0123456789abcdef\n", "line 1"},
      {"\ntok-0123456789abcdef bob\n", "no grant"},
      {"tok-0123456789abcdef bob own:acme/*\n", "unknown access 'own'"},
      {"tok-0123456789abcdef bob read\n", "ACCESS:PATTERN"},
      {"short bob read:*\n", "shorter than 16"},
      {"sha256:abc bob read:*\n", "bad token hash"},
      {"tok-0123456789abcdef a read:*\ntok-0123456789abcdef b read:*\n",
       "line 2: the same token"},
      {"# nothing\n", "no tokens"},
  };
  for (const auto& c : cases) {
    auto t = TokenTable::Parse(c.text);
    ASSERT_FALSE(t.has_value()) << c.text;
    EXPECT_NE(t.error().message().find(c.want), std::string::npos)
        << t.error().message();
  }
}

TEST(TokenTableTest, OpenTableAdmitsEveryoneAsAnonymous) {
  auto t = TokenTable::Open();
  auto p = t.Authenticate("");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->name, "anonymous");
  EXPECT_TRUE(p->Allows(Access::kAdmin, "x/y"));
}

}  // namespace
}  // namespace sealvol::server
