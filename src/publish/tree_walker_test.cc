#include "publish/tree_walker.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "testing/temp_dir.h"

namespace sealvol {
namespace {

using testing::TempDir;

TEST(TreeWalkerTest, ListsFilesSymlinksAndEmptyDirsSorted) {
  TempDir t;
  t.Write("b.txt", "b");
  t.Write("a/x.bin", "xx", 0755);
  t.Write("a-b", "dash");  // '-' (0x2d) sorts before '/' (0x2f)
  t.Mkdir("empty/inner");
  t.Symlink("../b.txt", "a/link");
  auto tree = WalkTree(t.path());
  ASSERT_TRUE(tree.has_value()) << tree.error().ToString();
  std::vector<std::string> paths;
  for (const auto& e : *tree) paths.push_back(e.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"a-b", "a/link", "a/x.bin",
                                             "b.txt", "empty/inner"}));
  EXPECT_EQ((*tree)[1].type, EntryType::kSymlink);
  EXPECT_EQ((*tree)[1].target, "../b.txt");
  EXPECT_TRUE((*tree)[2].executable);
  EXPECT_FALSE((*tree)[3].executable);
  EXPECT_EQ((*tree)[2].size, 2u);
  EXPECT_EQ((*tree)[4].type, EntryType::kDir);
}

void ExpectRefused(const TempDir& t, const std::string& needle) {
  auto tree = WalkTree(t.path());
  ASSERT_FALSE(tree.has_value());
  EXPECT_NE(tree.error().message().find(needle), std::string::npos)
      << tree.error().message();
}

TEST(TreeWalkerTest, RefusesWhatAVersionCannotHold) {
  {
    TempDir t;
    ASSERT_EQ(::mkfifo((t / "pipe").c_str(), 0644), 0);
    ExpectRefused(t, "'pipe': it is a FIFO");
  }
  {
    TempDir t;
    int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::string p = t / "sock";
    std::snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", p.c_str());
    ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    ExpectRefused(t, "'sock': it is a socket");
    ::close(fd);
  }
  {
    TempDir t;
    t.Symlink("../../etc/passwd", "sub/escape");
    ExpectRefused(t, "leaves the volume");
  }
  {
    TempDir t;
    t.Symlink("/etc/passwd", "abs");
    ExpectRefused(t, "absolute");
  }
  {
    TempDir t;
    t.Write("bad\xff-name", "x");
    ExpectRefused(t, "not valid UTF-8");
  }
  {
    TempDir t;
    t.Write("new\nline", "x");
    ExpectRefused(t, "control character");
  }
}

TEST(TreeWalkerTest, MissingOrNonDirectoryRoot) {
  EXPECT_EQ(WalkTree("/nonexistent/sealvol").error().code(),
            StatusCode::kNotFound);
  TempDir t;
  t.Write("f", "x");
  EXPECT_EQ(WalkTree(t / "f").error().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace sealvol
