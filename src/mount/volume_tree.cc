#include "mount/volume_tree.h"

#include <sys/stat.h>

#include <algorithm>
#include <unordered_map>

namespace sealvol {

uint64_t TreeNode::size() const {
  if (type == EntryType::kFile) return entry->size;
  if (type == EntryType::kSymlink) return entry->target.size();
  return 4096;
}

uint32_t TreeNode::mode() const {
  switch (type) {
    case EntryType::kDir:
      return S_IFDIR | 0755;
    case EntryType::kSymlink:
      return S_IFLNK | 0777;
    case EntryType::kFile:
      break;
  }
  return S_IFREG | (entry->executable ? 0755 : 0644);
}

Result<VolumeTree> VolumeTree::Build(Manifest manifest) {
  VolumeTree t;
  t.manifest_ = std::move(manifest);
  t.nodes_.emplace_back();
  t.nodes_.back().ino = kRootIno;
  t.nodes_.back().parent = kRootIno;
  std::unordered_map<std::string_view, uint64_t> dirs{{"", kRootIno}};

  auto add = [&](uint64_t parent, std::string_view name,
                 EntryType type) -> TreeNode& {
    TreeNode& n = t.nodes_.emplace_back();
    n.ino = t.nodes_.size();
    n.parent = parent;
    n.name = std::string(name);
    n.type = type;
    TreeNode& p = t.nodes_[parent - 1];
    p.children.emplace_back(std::string_view(), n.ino);
    if (type == EntryType::kDir) ++p.subdirs;
    return n;
  };
  // The directory at `path` (a prefix of some entry's path), created with
  // its parents when missing.
  auto dir_for = [&](std::string_view path) -> Result<uint64_t> {
    size_t pos = 0;
    uint64_t ino = kRootIno;
    while (pos < path.size()) {
      size_t slash = path.find('/', pos);
      if (slash == std::string_view::npos) slash = path.size();
      std::string_view prefix = path.substr(0, slash);
      auto it = dirs.find(prefix);
      if (it == dirs.end()) {
        ino = add(ino, path.substr(pos, slash - pos), EntryType::kDir).ino;
        dirs.emplace(prefix, ino);
      } else {
        ino = it->second;
      }
      pos = slash + 1;
    }
    return ino;
  };

  for (const ManifestEntry& e : t.manifest_.entries) {
    size_t slash = e.path.rfind('/');
    std::string_view parent_path =
        slash == std::string::npos ? std::string_view()
                                   : std::string_view(e.path).substr(0, slash);
    SV_ASSIGN_OR_RETURN(uint64_t parent, dir_for(parent_path));
    if (t.nodes_[parent - 1].type != EntryType::kDir) {
      return FailedPrecondition("manifest: '" + std::string(parent_path) +
                                "' is both a file and a directory");
    }
    if (e.type == EntryType::kDir) {
      SV_ASSIGN_OR_RETURN(uint64_t ino, dir_for(e.path));
      (void)ino;
      continue;
    }
    std::string_view name = std::string_view(e.path).substr(slash + 1);
    TreeNode& n = add(parent, name, e.type);
    n.entry = &e;
    dirs.emplace(e.path, n.ino);  // so a later "path/x" is caught above
  }
  // Names point into the nodes, which a deque never moves.
  for (TreeNode& n : t.nodes_) {
    for (auto& [name, ino] : n.children) name = t.nodes_[ino - 1].name;
    std::sort(n.children.begin(), n.children.end());
    if (std::adjacent_find(n.children.begin(), n.children.end(),
                           [](const auto& a, const auto& b) {
                             return a.first == b.first;
                           }) != n.children.end()) {
      return FailedPrecondition("manifest: duplicate name in a directory");
    }
  }
  return t;
}

const TreeNode* VolumeTree::Get(uint64_t ino) const {
  if (ino == 0 || ino > nodes_.size()) return nullptr;
  return &nodes_[ino - 1];
}

const TreeNode* VolumeTree::Lookup(uint64_t parent,
                                   std::string_view name) const {
  const TreeNode* p = Get(parent);
  if (p == nullptr || p->type != EntryType::kDir) return nullptr;
  auto it = std::lower_bound(
      p->children.begin(), p->children.end(), name,
      [](const auto& child, std::string_view n) { return child.first < n; });
  if (it == p->children.end() || it->first != name) return nullptr;
  return Get(it->second);
}

}  // namespace sealvol
