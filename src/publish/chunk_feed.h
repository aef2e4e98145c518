// Internal to publish/: the state one build shares between the thread that
// reads a source and the workers that hash, compress and store chunks, and
// ChunkFeed, which cuts one file's bytes (fed in blocks of any size) into
// chunks and hashes the whole file. Local publishes and syncs from remote
// sources share both, so a tree's digest does not depend on where its bytes
// came from.
//
// Thread safety: BuildRun is shared by one reader and many workers (its
// counters are atomic, its error under a mutex). A ChunkFeed belongs to the
// one reading thread; the workers it submits to fill slots it never moves.
#ifndef SEALVOL_PUBLISH_CHUNK_FEED_H_
#define SEALVOL_PUBLISH_CHUNK_FEED_H_

#include <atomic>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>

#include "base/status.h"
#include "base/thread_pool.h"
#include "chunk/chunker.h"
#include "format/chunk_index.h"
#include "format/envelope.h"
#include "format/manifest.h"
#include "hash/sha256.h"
#include "publish/publisher.h"
#include "store/blob_store.h"

namespace sealvol::publish_internal {

struct BuildRun {
  BlobStore* store;
  CompressPolicy compress;
  PublishProgress* progress;
  ByteBudget budget;
  std::atomic<uint64_t> new_bytes{0}, reused_bytes{0}, stored_bytes{0};
  std::atomic<uint64_t> new_chunks{0};
  std::mutex mu;
  Status first_error;  // GUARDED_BY(mu)

  BuildRun(BlobStore* s, CompressPolicy c, PublishProgress* p,
           uint64_t budget_bytes)
      : store(s), compress(c), progress(p), budget(budget_bytes) {}

  void Fail(Status s);
  bool failed();
  // Stores one blob unless the store has it; returns whether it was new.
  Result<bool> Store(const Digest& d, std::string_view plain);
  // Hashes and stores one chunk into `slot`, then releases its budget.
  void StoreChunk(std::string data, ChunkRef* slot);
  // Counts a file whose chunks an earlier run already stored.
  void CountReused(uint64_t bytes);
};

// Everything the manifest needs about one file once its bytes are chunked.
struct ChunkedFile {
  Digest sha256;
  std::deque<ChunkRef> chunks;  // deque: workers hold pointers into it
};

class ChunkFeed {
 public:
  ChunkFeed(BuildRun& run, ThreadPool& pool, ChunkedFile* out)
      : run_(run), pool_(pool), out_(out) {}
  // Feeds the next `n` bytes of the file.
  void Feed(const char* data, size_t n);
  // Submits the last chunk and records the file's sha256.
  void Finish();

 private:
  void Submit();

  BuildRun& run_;
  ThreadPool& pool_;
  ChunkedFile* out_;
  Chunker chunker_;
  Sha256 file_hash_;
  std::string pending_;  // bytes of the current chunk so far
};

// The manifest entry of a file whose chunks are in `fc`: stores its chunk
// index when it has more than one chunk.
Status FinishFileEntry(BuildRun& run, ChunkedFile& fc, ManifestEntry* e);

// Serializes `out->manifest` and fills in the digest and the run's
// counters.
Status FinishVersion(BuildRun& run, BuiltVersion* out);

// Fills `fc` from a remembered (sha256, chunk index) pair when the store
// still holds every chunk, refreshing their age for GC; false otherwise.
bool ReuseChunks(BlobStore& store, const ManifestEntry& remembered,
                 ChunkedFile* fc);

}  // namespace sealvol::publish_internal

#endif  // SEALVOL_PUBLISH_CHUNK_FEED_H_
