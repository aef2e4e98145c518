#include "format/names.h"

#include <gtest/gtest.h>

namespace sealvol {
namespace {

TEST(NamesTest, VolumeNames) {
  for (const char* ok : {"a", "acme/llama3-8b", "acme/x.y_z-w/v2", "0/1"}) {
    EXPECT_TRUE(ValidateVolumeName(ok).ok()) << ok;
  }
  for (const char* bad :
       {"", "Acme/x", "acme/", "/acme", "acme//x", "a--b", "-a", "a-", "a/../b",
        "a b", "a:b", "a@b", "..", "a\\b"}) {
    EXPECT_FALSE(ValidateVolumeName(bad).ok()) << bad;
  }
  EXPECT_TRUE(ValidateVolumeName(std::string(255, 'a')).ok());
  EXPECT_FALSE(ValidateVolumeName(std::string(256, 'a')).ok());
}

TEST(NamesTest, Tags) {
  for (const char* ok : {"prod", "v2", "_x", "A.b-c_1", "latest"}) {
    EXPECT_TRUE(ValidateTag(ok).ok()) << ok;
  }
  for (const char* bad : {"", ".x", "-x", "a/b", "a:b", "a b", "ü"}) {
    EXPECT_FALSE(ValidateTag(bad).ok()) << bad;
  }
  EXPECT_TRUE(ValidateTag(std::string(128, 'a')).ok());
  EXPECT_FALSE(ValidateTag(std::string(129, 'a')).ok());
}

TEST(NamesTest, Refs) {
  auto r = ParseRef("acme/m:prod");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->volume, "acme/m");
  EXPECT_EQ(r->tag, "prod");
  EXPECT_FALSE(r->digest.has_value());
  auto bare = ParseRef("acme/m");
  EXPECT_EQ(bare->tag, "latest");
  EXPECT_EQ(bare->ToString(), "acme/m:latest");
  std::string hex(64, 'a');
  auto pinned = ParseRef("acme/m@sha256:" + hex);
  ASSERT_TRUE(pinned.has_value());
  EXPECT_EQ(pinned->digest->Hex(), hex);
  EXPECT_EQ(pinned->ToString(), "acme/m@sha256:" + hex);
  EXPECT_FALSE(ParseRef("acme/m@sha256:abc").has_value());
  EXPECT_FALSE(ParseRef("acme/m:").has_value());
  EXPECT_FALSE(ParseRef("Acme:prod").has_value());
  EXPECT_FALSE(ParseTagRef("acme/m@sha256:" + hex).has_value());
}

TEST(NamesTest, Utf8) {
  EXPECT_TRUE(IsValidUtf8("plain"));
  EXPECT_TRUE(IsValidUtf8("gr\xc3\xbc\xc3\x9f \xe2\x82\xac \xf0\x9f\x98\x80"));
  EXPECT_FALSE(IsValidUtf8("\xff"));
  EXPECT_FALSE(IsValidUtf8("\xc3"));              // truncated
  EXPECT_FALSE(IsValidUtf8("\xc0\xaf"));          // overlong '/'
  EXPECT_FALSE(IsValidUtf8("\xed\xa0\x80"));      // surrogate
  EXPECT_FALSE(IsValidUtf8("\xf4\x90\x80\x80"));  // past U+10FFFF
}

TEST(NamesTest, Paths) {
  for (const char* ok :
       {"a", "a/b.c", "dir/sub/file", ".hidden", "a..b", "\xc3\xbc"}) {
    EXPECT_TRUE(ValidatePath(ok).ok()) << ok;
  }
  for (const std::string& bad :
       {std::string(""), std::string("/abs"), std::string("a//b"),
        std::string("a/"), std::string("./a"), std::string("a/./b"),
        std::string("../a"), std::string("a/.."), std::string("a\\b"),
        std::string("a\nb"), std::string("a\x7f"), std::string("a\0b", 3),
        std::string("\xff"), std::string(4097, 'a'), std::string(256, 'a')}) {
    EXPECT_FALSE(ValidatePath(bad).ok()) << bad;
  }
}

TEST(NamesTest, SymlinkTargets) {
  EXPECT_TRUE(ValidateSymlinkTarget("a/link", "../b").ok());
  EXPECT_TRUE(ValidateSymlinkTarget("link", "b/c").ok());
  EXPECT_TRUE(ValidateSymlinkTarget("a/b/link", "../../c/d").ok());
  EXPECT_FALSE(ValidateSymlinkTarget("link", "../b").ok());       // escapes
  EXPECT_FALSE(ValidateSymlinkTarget("a/link", "../../b").ok());  // escapes
  EXPECT_FALSE(ValidateSymlinkTarget("link", "/etc/passwd").ok());
  EXPECT_FALSE(ValidateSymlinkTarget("link", "").ok());
  EXPECT_FALSE(
      ValidateSymlinkTarget("a/link", "b/../../x").ok());  // not normal
  EXPECT_FALSE(ValidateSymlinkTarget("link", "./b").ok());
  EXPECT_FALSE(ValidateSymlinkTarget("link", "b//c").ok());
}

}  // namespace
}  // namespace sealvol
