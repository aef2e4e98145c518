// ChunkStream: yields a file's chunks in order, each fetched, decoded and
// verified against its digest by a thread pool a few chunks ahead of the
// reader. Used by pull, verify and cat.
//
// Thread safety: one reader thread per stream; the fetches run on the pool.
// The pool must outlive the stream.
#ifndef SEALVOL_PULL_CHUNK_STREAM_H_
#define SEALVOL_PULL_CHUNK_STREAM_H_

#include <deque>
#include <future>
#include <string>
#include <vector>

#include "base/thread_pool.h"
#include "format/chunk_index.h"
#include "store/blob_store.h"

namespace sealvol {

class ChunkStream {
 public:
  ChunkStream(BlobStore* store, ThreadPool* pool, std::vector<ChunkRef> chunks,
              size_t window = 8);
  ~ChunkStream();  // waits for fetches still in flight

  bool done() const { return next_ == chunks_.size(); }
  // Index and offset of the chunk the next call to Next returns.
  size_t index() const { return next_; }
  uint64_t offset() const { return offset_; }
  const ChunkRef& current() const { return chunks_[next_]; }

  // The next chunk's verified bytes, or why it could not be read (NotFound,
  // Corruption, IOError). REQUIRES: !done().
  Result<std::string> Next();

 private:
  void Launch();

  BlobStore* store_;
  ThreadPool* pool_;
  std::vector<ChunkRef> chunks_;
  size_t window_;
  size_t next_ = 0;      // next chunk to hand out
  size_t launched_ = 0;  // next chunk to fetch
  uint64_t offset_ = 0;
  std::deque<std::future<Result<std::string>>> inflight_;
};

}  // namespace sealvol

#endif  // SEALVOL_PULL_CHUNK_STREAM_H_
