// ChunkSource: how the mount gets a blob's bytes, through three tiers:
// memory (ChunkCache), the node cache on disk (NodeCache), then the store
// (any BlobStore: the embedded one, or a remote registry later). Bytes from
// the store are decoded and verified against their digest before they enter
// either cache; a store that is unavailable or failing is retried with
// backoff for `retry_for` before the read fails.
//
// Thread safety: all methods may be called from any thread. Prefetches run
// on the source's own pool.
#ifndef SEALVOL_MOUNT_CHUNK_SOURCE_H_
#define SEALVOL_MOUNT_CHUNK_SOURCE_H_

#include <atomic>
#include <chrono>
#include <optional>

#include "base/thread_pool.h"
#include "format/chunk_index.h"
#include "mount/chunk_cache.h"
#include "mount/mount_stats.h"
#include "mount/node_cache.h"
#include "store/blob_store.h"

namespace sealvol {

struct FetchOptions {
  unsigned prefetch_threads = 4;
  std::chrono::milliseconds retry_for{10000};
  std::chrono::milliseconds first_backoff{50};
  std::chrono::milliseconds max_backoff{2000};
};

class ChunkSource {
 public:
  // `disk` may be null (no node cache). Everything must outlive the source.
  ChunkSource(BlobStore* store, ChunkCache* memory, NodeCache* disk,
              MountStats* stats, FetchOptions options = {});
  ~ChunkSource();  // waits for prefetches in flight

  // The verified bytes of blob `digest`: exactly `size` bytes when given,
  // never more than `max_size`. NotFound or Corruption when the store lacks
  // the blob or holds bad bytes for it; Unavailable/IOError when the store
  // kept failing for retry_for.
  Result<ChunkPtr> Get(const Digest& digest, std::optional<uint64_t> size,
                       uint64_t max_size);
  Result<ChunkPtr> Get(const ChunkRef& chunk) {
    return Get(chunk.digest, chunk.length, chunk.length);
  }

  // Starts fetching `chunk` into memory in the background unless it is
  // there or on its way. Errors are left for the reader to meet.
  void Prefetch(const ChunkRef& chunk);

  // Makes sure the node cache holds `chunk`, without filling memory (for
  // hydrating a whole version). Returns false when the fetch failed.
  bool Hydrate(const ChunkRef& chunk);

  MountStats& stats() { return *stats_; }

 private:
  // Fetches, verifies and hands the chunk to the node cache: queued for
  // the cache's writers, or written before returning with write_through.
  Result<ChunkPtr> FetchFromStore(const Digest& digest,
                                  std::optional<uint64_t> size,
                                  uint64_t max_size,
                                  bool write_through = false);

  BlobStore* store_;
  ChunkCache* memory_;
  NodeCache* disk_;
  MountStats* stats_;
  FetchOptions options_;
  ThreadPool pool_;  // last: destroyed (drained) first
};

}  // namespace sealvol

#endif  // SEALVOL_MOUNT_CHUNK_SOURCE_H_
