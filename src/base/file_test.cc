#include "base/file.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

namespace sealvol {
namespace {

class FileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sealvol-file-test-XXXXXX";
    dir_ = ::mkdtemp(tmpl);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  size_t CountEntries() {
    size_t n = 0;
    for (auto& e : std::filesystem::directory_iterator(dir_)) (void)e, ++n;
    return n;
  }
  std::string dir_;
};

TEST_F(FileTest, AtomicWriteThenRead) {
  std::string p = dir_ + "/a";
  ASSERT_TRUE(WriteFileAtomic(p, "hello").ok());
  auto got = ReadFile(p, 100);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(*got, "hello");
  EXPECT_EQ(CountEntries(), 1u);  // no temp file left behind
}

TEST_F(FileTest, NoReplaceKeepsTheExistingFile) {
  std::string p = dir_ + "/a";
  ASSERT_TRUE(WriteFileAtomic(p, "first", AtomicMode::kNoReplace).ok());
  Status s = WriteFileAtomic(p, "second", AtomicMode::kNoReplace);
  EXPECT_EQ(s.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(*ReadFile(p, 100), "first");
  EXPECT_EQ(CountEntries(), 1u);
  ASSERT_TRUE(WriteFileAtomic(p, "third", AtomicMode::kReplace).ok());
  EXPECT_EQ(*ReadFile(p, 100), "third");
}

TEST_F(FileTest, ReadFileRefusesFilesOverTheCap) {
  std::string p = dir_ + "/big";
  ASSERT_TRUE(WriteFileAtomic(p, std::string(1000, 'x')).ok());
  auto r = ReadFile(p, 999);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(ReadFile(p, 1000).has_value());
}

TEST_F(FileTest, MissingFileIsNotFound) {
  auto r = ReadFile(dir_ + "/nope", 10);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), StatusCode::kNotFound);
}

TEST_F(FileTest, RemovesOnlyTempFilesOfDeadWriters) {
  std::string mine = TempPathFor(dir_ + "/x");  // this process is alive
  ASSERT_TRUE(WriteFileAtomic(mine, "live").ok());
  // pid 999999999 exceeds pid_max: no such process.
  ASSERT_TRUE(WriteFileAtomic(dir_ + "/.tmp-999999999-0-1", "orphan").ok());
  ASSERT_TRUE(WriteFileAtomic(dir_ + "/keep.txt", "user file").ok());
  EXPECT_EQ(RemoveOrphanTemps(dir_), 1u);
  EXPECT_TRUE(std::filesystem::exists(mine));
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/keep.txt"));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/.tmp-999999999-0-1"));
}

TEST_F(FileTest, WriteIntoMissingDirectoryFailsCleanly) {
  Status s = WriteFileAtomic(dir_ + "/no/such/dir/f", "x");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(CountEntries(), 0u);
}

}  // namespace
}  // namespace sealvol
