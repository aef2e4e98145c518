// NodeCache: the mount's on-disk tier, shared by every mount on the node and
// across versions. Content-addressed: <dir>/chunks/<xx>/<hex> holds the
// decoded bytes of the blob with that SHA-256 (docs/mount.md).
//
// It never hands out bytes it has not verified: a file is written under a
// temp name and renamed into place only when complete, and every Load
// re-hashes what it read, removing a file that does not match (what a crash
// or a bad disk can leave). Usage is bounded by `capacity`: when the files
// pass it, the least recently used (oldest mtime; a hit refreshes it) are
// removed down to 90 %.
//
// Thread safety: all methods may be called from any thread, and several
// processes may share one directory.
#ifndef SEALVOL_MOUNT_NODE_CACHE_H_
#define SEALVOL_MOUNT_NODE_CACHE_H_

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "base/status.h"
#include "hash/digest.h"
#include "mount/chunk_cache.h"
#include "mount/mount_stats.h"

namespace sealvol {

class NodeCache {
 public:
  // Creates <dir>/chunks when needed. Scans the existing files (usage,
  // eviction, temp files of killed writers) on a background thread, so
  // opening stays fast however large the cache is. `stats` may be null.
  static Result<std::unique_ptr<NodeCache>> Open(const std::string& dir,
                                                 uint64_t capacity,
                                                 MountStats* stats);
  ~NodeCache();

  // Where the cache under `dir` (as given to Open) keeps `digest`: for
  // readers that only ask what is cached (sealvol status), without opening.
  static std::string ChunkPath(const std::string& dir, const Digest& digest);

  // The verified bytes stored for `digest` (of `size` bytes when given), or
  // nullopt when the cache does not hold them.
  std::optional<std::string> Load(const Digest& digest,
                                  std::optional<uint64_t> size);

  // True when a file for `digest` exists (not verified: Load verifies).
  bool Contains(const Digest& digest) const;

  // Keeps `bytes` (verified by the caller) under `digest`. Failures (a full
  // disk) are counted, never fatal: this is a cache.
  void Store(const Digest& digest, std::string_view bytes);

  // Store on the cache's writer thread, so a reader never waits for the
  // disk. Blocks while more than `kWriteBehindBytes` wait to be written.
  // Pending writes finish before the cache is destroyed.
  void StoreAsync(const Digest& digest, ChunkPtr bytes);
  static constexpr uint64_t kWriteBehindBytes = 64ull << 20;

  // Scans the cache and evicts down to the capacity now (on this thread).
  void Trim();

  // Bytes the cache holds, as of the last scan plus what was stored since.
  uint64_t usage() const { return usage_.load(); }
  uint64_t capacity() const { return capacity_; }
  const std::string& dir() const { return dir_; }

 private:
  NodeCache(std::string dir, uint64_t capacity, MountStats* stats);
  std::string PathFor(const Digest& digest) const;
  void TrimLoop();
  void WriteLoop();

  const std::string dir_;  // <cache-dir>/chunks
  const uint64_t capacity_;
  MountStats* stats_;
  MountStats own_stats_;
  std::atomic<uint64_t> usage_{0};

  std::mutex trim_mu_;  // serializes Trim
  std::mutex mu_;
  std::condition_variable cv_;
  bool trim_wanted_ = true;  // GUARDED_BY(mu_); the first scan
  bool stop_ = false;        // GUARDED_BY(mu_)
  std::deque<std::pair<Digest, ChunkPtr>> writes_;  // GUARDED_BY(mu_)
  uint64_t write_bytes_ = 0;                        // GUARDED_BY(mu_)
  std::condition_variable write_cv_;  // a write queued, or the queue drained
  std::thread trimmer_;
  // Creating a file costs more than writing 1 MiB into it on ext4; two
  // writers keep up with about twice the fetch rate of one (docs/mount.md).
  std::thread writers_[2];
};

}  // namespace sealvol

#endif  // SEALVOL_MOUNT_NODE_CACHE_H_
