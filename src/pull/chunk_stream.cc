#include "pull/chunk_stream.h"

#include <memory>

#include "store/blob_reader.h"

namespace sealvol {

ChunkStream::ChunkStream(BlobStore* store, ThreadPool* pool,
                         std::vector<ChunkRef> chunks, size_t window)
    : store_(store), pool_(pool), chunks_(std::move(chunks)), window_(window) {
  Launch();
}

ChunkStream::~ChunkStream() {
  for (auto& f : inflight_) f.wait();
}

void ChunkStream::Launch() {
  while (launched_ < chunks_.size() && inflight_.size() < window_) {
    auto task = std::make_shared<std::packaged_task<Result<std::string>()>>(
        [store = store_, ref = chunks_[launched_]] {
          return ReadBlob(*store, ref.digest, ref.length);
        });
    inflight_.push_back(task->get_future());
    pool_->Submit([task] { (*task)(); });
    ++launched_;
  }
}

Result<std::string> ChunkStream::Next() {
  Result<std::string> r = inflight_.front().get();
  inflight_.pop_front();
  offset_ += chunks_[next_].length;
  ++next_;
  Launch();
  return r;
}

}  // namespace sealvol
