// A node's deployment layout: symlink swaps, what a link points at, and
// refusing to replace anything that is not a symlink.
#include "deploy/node.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "base/file.h"
#include "hash/sha256.h"
#include "testing/temp_dir.h"

namespace sealvol {
namespace {

using testing::TempDir;

TEST(NodeTest, SwapsLinksAndReadsThemBack) {
  TempDir t;
  std::string dep = DeploymentDir(t.path(), "team/chat");
  EXPECT_EQ(dep, t.path() + "/team_chat");
  Digest a = Sha256::Of("a"), b = Sha256::Of("b");
  ASSERT_TRUE(MakeDirs(MountDirFor(dep, a)).ok());
  ASSERT_TRUE(MakeDirs(MountDirFor(dep, b)).ok());
  std::string link = t / "srv/models/m";  // parents are created
  ASSERT_TRUE(SwapSymlink(link, MountDirFor(dep, a)).ok());
  EXPECT_EQ(LinkedDigest(link, dep), a);
  ASSERT_TRUE(SwapSymlink(link, MountDirFor(dep, b)).ok());
  EXPECT_EQ(LinkedDigest(link, dep), b);
  // No temp link is left beside it.
  int entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(t / "srv/models")) {
    (void)e;
    ++entries;
  }
  EXPECT_EQ(entries, 1);
  auto dirs = MountDirs(dep);
  EXPECT_EQ(dirs.size(), 2u);
  // A link elsewhere is not ours: not read, not removed.
  ASSERT_EQ(symlink("/etc", (t / "other").c_str()), 0);
  EXPECT_FALSE(LinkedDigest(t / "other", dep).has_value());
  EXPECT_FALSE(*RemoveLink(t / "other", dep));
  EXPECT_TRUE(*RemoveLink(link, dep));
  struct stat st;
  EXPECT_NE(lstat(link.c_str(), &st), 0);
}

TEST(NodeTest, NeverReplacesADirectoryOrFile) {
  TempDir t;
  t.Mkdir("models/m");
  t.Write("models/f", "data");
  Status s = SwapSymlink(t / "models/m", t / "x");
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("is not a symlink"), std::string::npos);
  EXPECT_EQ(SwapSymlink(t / "models/f", t / "x").code(),
            StatusCode::kFailedPrecondition);
  struct stat st;
  ASSERT_EQ(lstat((t / "models/m").c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
}

TEST(NodeTest, DeploymentLockIsExclusive) {
  TempDir t;
  auto first = DeploymentLock::Acquire(t / "dep");
  ASSERT_TRUE(first.has_value());
  int fd = open((t / "dep/lock").c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  EXPECT_NE(flock(fd, LOCK_EX | LOCK_NB), 0);  // held
  close(fd);
}

}  // namespace
}  // namespace sealvol
