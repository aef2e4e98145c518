#include "base/file.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

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
  std::string Temp(const std::string& path, const std::string& data) {
    std::string tmp = TempPathFor(path);
    std::ofstream(tmp, std::ios::binary) << data;
    return tmp;
  }
  std::string Read(const std::string& path) { return *ReadFile(path, 1000); }
  std::string dir_;
};

TEST_F(FileTest, RenameBatchPublishesNothingUntilCommit) {
  RenameBatch batch;
  batch.Add(Temp(dir_ + "/a", "alpha"), dir_ + "/a", AtomicMode::kReplace);
  batch.Add(Temp(dir_ + "/b", "beta"), dir_ + "/b", AtomicMode::kNoReplace);
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/a"));
  ASSERT_TRUE(batch.Commit(dir_).ok());
  EXPECT_TRUE(batch.empty());
  EXPECT_EQ(Read(dir_ + "/a"), "alpha");
  EXPECT_EQ(Read(dir_ + "/b"), "beta");
  EXPECT_EQ(CountEntries(), 2u);  // no temp file left behind
}

TEST_F(FileTest, RenameBatchNoReplaceKeepsTheExistingFile) {
  RenameBatch first;
  first.Add(Temp(dir_ + "/a", "first"), dir_ + "/a", AtomicMode::kNoReplace);
  ASSERT_TRUE(first.Commit(dir_).ok());
  RenameBatch second;
  second.Add(Temp(dir_ + "/a", "second"), dir_ + "/a", AtomicMode::kNoReplace);
  ASSERT_TRUE(second.Commit(dir_).ok());
  EXPECT_EQ(Read(dir_ + "/a"), "first");
  RenameBatch third;
  third.Add(Temp(dir_ + "/a", "third"), dir_ + "/a", AtomicMode::kReplace);
  ASSERT_TRUE(third.Commit(dir_).ok());
  EXPECT_EQ(Read(dir_ + "/a"), "third");
  EXPECT_EQ(CountEntries(), 1u);
}

TEST_F(FileTest, RenameBatchAbandonAndFailureLeaveNoTempFiles) {
  RenameBatch abandoned;
  abandoned.Add(Temp(dir_ + "/a", "x"), dir_ + "/a", AtomicMode::kReplace);
  abandoned.Abandon();
  EXPECT_EQ(CountEntries(), 0u);
  RenameBatch failing;
  failing.Add(Temp(dir_ + "/b", "y"), dir_ + "/no/such/dir/b",
              AtomicMode::kReplace);
  EXPECT_FALSE(failing.Commit(dir_).ok());
  EXPECT_EQ(CountEntries(), 0u);
}

TEST_F(FileTest, ReadFileRefusesFilesOverTheCap) {
  std::string p = dir_ + "/big";
  std::ofstream(p) << std::string(1000, 'x');
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
  std::string mine = Temp(dir_ + "/x", "live");  // this process is alive
  // pid 999999999 exceeds pid_max: no such process.
  std::ofstream(dir_ + "/.tmp-999999999-0-1") << "orphan";
  std::ofstream(dir_ + "/keep.txt") << "user file";
  EXPECT_EQ(RemoveOrphanTemps(dir_), 1u);
  EXPECT_TRUE(std::filesystem::exists(mine));
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/keep.txt"));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/.tmp-999999999-0-1"));
}

}  // namespace
}  // namespace sealvol
