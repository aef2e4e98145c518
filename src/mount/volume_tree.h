// VolumeTree: a version's manifest as a directory tree with inode numbers,
// the shape the filesystem serves. The manifest lists files, symlinks and
// empty directories; every other directory is implied by the paths under
// it and created here. Inode numbers are assigned in manifest order (root
// is 1), so the same version always gets the same numbers.
//
// Thread safety: immutable after Build; safe to read from any thread.
#ifndef SEALVOL_MOUNT_VOLUME_TREE_H_
#define SEALVOL_MOUNT_VOLUME_TREE_H_

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "format/manifest.h"

namespace sealvol {

inline constexpr uint64_t kRootIno = 1;

struct TreeNode {
  uint64_t ino = 0;
  uint64_t parent = 0;
  std::string name;  // last path component; empty for the root
  EntryType type = EntryType::kDir;
  // Files and symlinks: their manifest entry (owned by the tree's manifest).
  const ManifestEntry* entry = nullptr;
  // Directories: children sorted by name, and how many are directories.
  std::vector<std::pair<std::string_view, uint64_t>> children;
  uint32_t subdirs = 0;

  uint64_t size() const;
  uint32_t mode() const;  // type bits and 0755/0644/0777
};

class VolumeTree {
 public:
  // FailedPrecondition if the manifest is inconsistent (a path both a file
  // and a directory); ParseManifest already rejects that, so only a
  // hand-built manifest can fail.
  static Result<VolumeTree> Build(Manifest manifest);

  // The node for `ino`, or null when there is none.
  const TreeNode* Get(uint64_t ino) const;
  // The child `name` of directory `parent`, or null.
  const TreeNode* Lookup(uint64_t parent, std::string_view name) const;

  size_t node_count() const { return nodes_.size(); }
  const Manifest& manifest() const { return manifest_; }
  const std::deque<TreeNode>& nodes() const { return nodes_; }

 private:
  Manifest manifest_;
  std::deque<TreeNode> nodes_;  // nodes_[ino - 1]
};

}  // namespace sealvol

#endif  // SEALVOL_MOUNT_VOLUME_TREE_H_
