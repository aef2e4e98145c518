#include "mount/volume_tree.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "hash/sha256.h"

namespace sealvol {
namespace {

ManifestEntry File(std::string path, uint64_t size, bool exec = false) {
  ManifestEntry e;
  e.path = std::move(path);
  e.size = size;
  e.executable = exec;
  e.sha256 = Sha256::Of("x");
  return e;
}

Manifest Sample() {
  Manifest m;
  m.entries.push_back(File("a.txt", 3));
  m.entries.push_back(File("a/b/c.bin", 10, true));
  ManifestEntry link;
  link.path = "a/link";
  link.type = EntryType::kSymlink;
  link.target = "b/c.bin";
  m.entries.push_back(link);
  ManifestEntry empty;
  empty.path = "z/empty";
  empty.type = EntryType::kDir;
  m.entries.push_back(empty);
  return m;
}

TEST(VolumeTreeTest, CreatesImpliedDirectoriesAndFindsEveryEntry) {
  auto t = VolumeTree::Build(Sample());
  ASSERT_TRUE(t.has_value()) << t.error().ToString();
  // root, a.txt, a, a/b, a/b/c.bin, a/link, z, z/empty
  EXPECT_EQ(t->node_count(), 8u);
  const TreeNode* a = t->Lookup(kRootIno, "a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->mode(), S_IFDIR | 0755u);
  const TreeNode* b = t->Lookup(a->ino, "b");
  ASSERT_NE(b, nullptr);
  const TreeNode* c = t->Lookup(b->ino, "c.bin");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->mode(), S_IFREG | 0755u);
  EXPECT_EQ(c->size(), 10u);
  EXPECT_EQ(c->parent, b->ino);
  const TreeNode* link = t->Lookup(a->ino, "link");
  ASSERT_NE(link, nullptr);
  EXPECT_EQ(link->mode(), S_IFLNK | 0777u);
  EXPECT_EQ(link->size(), 7u);
  EXPECT_EQ(t->Lookup(kRootIno, "a.txt")->mode(), S_IFREG | 0644u);
  const TreeNode* z = t->Lookup(kRootIno, "z");
  ASSERT_NE(z, nullptr);
  const TreeNode* empty = t->Lookup(z->ino, "empty");
  ASSERT_NE(empty, nullptr);
  EXPECT_TRUE(empty->children.empty());
  EXPECT_EQ(t->Get(kRootIno)->subdirs, 2u);
  EXPECT_EQ(t->Lookup(kRootIno, "missing"), nullptr);
  EXPECT_EQ(t->Lookup(c->ino, "x"), nullptr);  // a file has no children
  EXPECT_EQ(t->Get(0), nullptr);
  EXPECT_EQ(t->Get(99), nullptr);
}

TEST(VolumeTreeTest, InodeNumbersAreTheSameEveryTime) {
  auto t1 = VolumeTree::Build(Sample());
  auto t2 = VolumeTree::Build(Sample());
  ASSERT_TRUE(t1.has_value() && t2.has_value());
  for (size_t i = 0; i < t1->node_count(); ++i) {
    const TreeNode* n1 = t1->Get(i + 1);
    const TreeNode* n2 = t2->Get(i + 1);
    EXPECT_EQ(n1->name, n2->name);
    EXPECT_EQ(n1->parent, n2->parent);
  }
}

TEST(VolumeTreeTest, RejectsAPathThatIsBothFileAndDirectory) {
  Manifest m;
  m.entries.push_back(File("a", 1));
  m.entries.push_back(File("a/b", 1));
  EXPECT_FALSE(VolumeTree::Build(m).has_value());
}

}  // namespace
}  // namespace sealvol
