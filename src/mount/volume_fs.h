// VolumeFs: the read-only filesystem a mount serves, independent of FUSE so
// it can be tested directly. It answers attribute, lookup and directory
// queries from the VolumeTree, loads a file's chunk index on first open,
// and serves reads chunk by chunk through the ChunkSource, prefetching
// ahead of sequential readers with a window that doubles while the reader
// stays sequential. With Prefetch::kAll it also hydrates the whole version
// into the node cache in the background, yielding to reads.
//
// Thread safety: all methods may be called from any thread; one OpenFile
// may be read from several threads at once.
#ifndef SEALVOL_MOUNT_VOLUME_FS_H_
#define SEALVOL_MOUNT_VOLUME_FS_H_

#include <sys/stat.h>
#include <sys/uio.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "mount/chunk_source.h"
#include "mount/volume_tree.h"

namespace sealvol {

enum class Prefetch { kNone, kAuto, kAll };

struct FsOptions {
  Prefetch prefetch = Prefetch::kAuto;
  uint32_t max_window_chunks = 16;  // the most chunks fetched ahead
  int64_t mtime = 0;                // every entry's mtime (the version's)
  uid_t uid = 0;
  gid_t gid = 0;
};

// A file's chunks and where each starts.
struct FileLayout {
  std::vector<ChunkRef> chunks;
  std::vector<uint64_t> starts;  // starts[i] = offset of chunks[i]
};

class OpenFile {
 public:
  const TreeNode& node() const { return *node_; }

 private:
  friend class VolumeFs;
  OpenFile(const TreeNode* node, std::shared_ptr<const FileLayout> layout)
      : node_(node), layout_(std::move(layout)) {}
  const TreeNode* node_;
  std::shared_ptr<const FileLayout> layout_;
  std::mutex mu_;
  uint64_t next_offset_ = 0;  // GUARDED_BY(mu_): where a sequential read goes
  uint32_t window_ = 0;       // GUARDED_BY(mu_): chunks to fetch ahead
  size_t prefetched_to_ = 0;  // GUARDED_BY(mu_): chunks already requested
};

// A read's bytes: iovecs into chunks that `pins` keeps alive.
struct ReadReply {
  std::vector<ChunkPtr> pins;
  std::vector<iovec> iov;
  size_t bytes = 0;
};

class VolumeFs {
 public:
  VolumeFs(VolumeTree tree, ChunkSource* source, FsOptions options);
  ~VolumeFs();  // stops hydration

  const VolumeTree& tree() const { return tree_; }

  // NotFound for an unknown inode or name.
  Result<struct stat> GetAttr(uint64_t ino) const;
  Result<struct stat> Lookup(uint64_t parent, std::string_view name) const;
  Result<std::string> ReadLink(uint64_t ino) const;

  // Opens a regular file, loading its chunk index (once per file) through
  // the source. NotFound; InvalidArgument for a non-file.
  Result<std::unique_ptr<OpenFile>> Open(uint64_t ino);

  // Up to `size` bytes at `offset` (fewer at end of file). A chunk that is
  // missing or corrupt fails the read with a message naming the file, the
  // offset and the chunk.
  Result<ReadReply> Read(OpenFile& file, uint64_t offset, size_t size);

  // Starts hydrating the whole version when the options ask for it.
  void StartHydration();
  bool hydration_done() const { return hydration_done_.load(); }
  uint64_t hydrated_bytes() const { return hydrated_bytes_.load(); }

 private:
  Result<std::shared_ptr<const FileLayout>> Layout(const TreeNode& node);
  void ReadAhead(OpenFile& file, uint64_t offset, size_t size, size_t last);
  void Hydrate();
  struct stat StatOf(const TreeNode& node) const;

  VolumeTree tree_;
  ChunkSource* source_;
  FsOptions options_;

  // Per inode: a mutex that makes the index load single-flight, and the
  // layout once loaded (a failed load is retried by the next open).
  std::unique_ptr<std::mutex[]> layout_mus_;
  std::vector<std::shared_ptr<const FileLayout>> layouts_;  // by ino - 1

  std::atomic<int> active_reads_{0};
  std::atomic<bool> stop_{false};
  std::atomic<bool> hydration_done_{false};
  std::atomic<uint64_t> hydrated_bytes_{0};
  std::thread hydrator_;
};

}  // namespace sealvol

#endif  // SEALVOL_MOUNT_VOLUME_FS_H_
