// TreeWalker: lists a local directory as the entries of a manifest-to-be,
// refusing anything a version cannot hold: sockets, FIFOs and devices, names
// that are not valid UTF-8 or break the path rules, and symlinks whose
// target is absolute or leaves the tree. Errors name the offending path.
//
// Thread safety: reentrant free function.
#ifndef SEALVOL_PUBLISH_TREE_WALKER_H_
#define SEALVOL_PUBLISH_TREE_WALKER_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "format/manifest.h"

namespace sealvol {

struct SourceFile {
  std::string path;      // relative, as it will appear in the manifest
  std::string abs_path;  // where to read it
  EntryType type = EntryType::kFile;
  bool executable = false;
  uint64_t size = 0;
  std::string target;  // symlinks
  // Identity when listed, to detect a file that changes while it is read.
  dev_t dev = 0;
  ino_t ino = 0;
  int64_t mtime_ns = 0;
  int64_t ctime_ns = 0;
};

// Entries sorted bytewise by path: files, symlinks and empty directories.
Result<std::vector<SourceFile>> WalkTree(const std::string& root);

}  // namespace sealvol

#endif  // SEALVOL_PUBLISH_TREE_WALKER_H_
