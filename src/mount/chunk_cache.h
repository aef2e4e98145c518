// ChunkCache: the mount's in-memory tier. Holds decoded, verified chunks up
// to a byte budget, evicting the least recently used, and runs each fetch
// once: concurrent readers of a chunk that is not yet here wait for the one
// fetch in flight instead of starting their own (single-flight).
//
// A failed fetch is not remembered: the next reader tries again, so a chunk
// repaired in the store reads correctly without a remount.
//
// Thread safety: all methods may be called from any thread.
#ifndef SEALVOL_MOUNT_CHUNK_CACHE_H_
#define SEALVOL_MOUNT_CHUNK_CACHE_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "base/status.h"
#include "hash/digest.h"

namespace sealvol {

using ChunkPtr = std::shared_ptr<const std::string>;

class ChunkCache {
 public:
  explicit ChunkCache(uint64_t capacity_bytes) : capacity_(capacity_bytes) {}

  // The chunk, from memory or by calling `fetch` (on this thread; at most one
  // fetch per digest runs at a time). `fetched` is set when this call ran
  // the fetch itself (not when it waited on another's).
  Result<ChunkPtr> GetOrFetch(const Digest& digest,
                              const std::function<Result<ChunkPtr>()>& fetch,
                              bool* fetched = nullptr);

  // The chunk when it is in memory; null otherwise. Counts as a use.
  ChunkPtr Lookup(const Digest& digest);

  // True when the chunk is in memory or being fetched right now.
  bool PresentOrPending(const Digest& digest);

  uint64_t bytes() const;
  uint64_t capacity() const { return capacity_; }

 private:
  struct Flight {
    bool done = false;
    Result<ChunkPtr> result = ChunkPtr{};
  };
  struct Entry {
    ChunkPtr data;
    std::list<Digest>::iterator lru_pos;
  };

  void InsertLocked(const Digest& digest, ChunkPtr data);

  const uint64_t capacity_;
  mutable std::mutex mu_;
  std::condition_variable flight_cv_;
  std::unordered_map<Digest, Entry, DigestHash> entries_;  // GUARDED_BY(mu_)
  std::list<Digest> lru_;  // front = most recent; GUARDED_BY(mu_)
  std::unordered_map<Digest, std::shared_ptr<Flight>, DigestHash>
      flights_;         // GUARDED_BY(mu_)
  uint64_t bytes_ = 0;  // GUARDED_BY(mu_)
};

}  // namespace sealvol

#endif  // SEALVOL_MOUNT_CHUNK_CACHE_H_
