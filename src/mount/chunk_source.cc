#include "mount/chunk_source.h"

#include <algorithm>
#include <thread>

#include "store/blob_reader.h"

namespace sealvol {

using Clock = std::chrono::steady_clock;

ChunkSource::ChunkSource(BlobStore* store, ChunkCache* memory, NodeCache* disk,
                         MountStats* stats, FetchOptions options)
    : store_(store),
      memory_(memory),
      disk_(disk),
      stats_(stats),
      options_(options),
      pool_(std::max(1u, options.prefetch_threads)) {}

ChunkSource::~ChunkSource() { pool_.Wait(); }

Result<ChunkPtr> ChunkSource::FetchFromStore(const Digest& digest,
                                             std::optional<uint64_t> size,
                                             uint64_t max_size,
                                             bool write_through) {
  auto start = Clock::now();
  auto backoff = options_.first_backoff;
  stats_->inflight.fetch_add(1);
  Result<std::string> bytes = std::string();
  for (;;) {
    bytes = ReadBlob(*store_, digest, size.value_or(kUnknownSize), max_size);
    if (bytes) break;
    // A store that is down or failing may come back; a missing or corrupt
    // blob will not.
    StatusCode code = bytes.error().code();
    bool transient =
        code == StatusCode::kUnavailable || code == StatusCode::kIOError;
    if (!transient || Clock::now() - start + backoff > options_.retry_for) {
      break;
    }
    stats_->fetch_retries.fetch_add(1);
    std::this_thread::sleep_for(backoff);
    backoff = std::min(backoff * 2, options_.max_backoff);
  }
  stats_->inflight.fetch_sub(1);
  auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
      Clock::now() - start);
  stats_->fetch_latency.Record(static_cast<uint64_t>(micros.count()));
  if (!bytes) {
    stats_->fetch_errors.fetch_add(1);
    return bytes.error();
  }
  stats_->fetches.fetch_add(1);
  stats_->bytes_fetched.fetch_add(bytes->size());
  auto chunk = std::make_shared<const std::string>(std::move(*bytes));
  if (disk_ != nullptr) {
    if (write_through) {
      disk_->Store(digest, *chunk);
    } else {
      disk_->StoreAsync(digest, chunk);
    }
  }
  return chunk;
}

Result<ChunkPtr> ChunkSource::Get(const Digest& digest,
                                  std::optional<uint64_t> size,
                                  uint64_t max_size) {
  bool fetched = false;
  auto result = memory_->GetOrFetch(
      digest,
      [&]() -> Result<ChunkPtr> {
        if (disk_ != nullptr) {
          if (auto hit = disk_->Load(digest, size)) {
            stats_->disk_hits.fetch_add(1);
            return std::make_shared<const std::string>(std::move(*hit));
          }
        }
        return FetchFromStore(digest, size, max_size);
      },
      &fetched);
  if (!fetched && result) stats_->memory_hits.fetch_add(1);
  return result;
}

void ChunkSource::Prefetch(const ChunkRef& chunk) {
  if (memory_->PresentOrPending(chunk.digest)) return;
  pool_.Submit([this, chunk] {
    if (memory_->PresentOrPending(chunk.digest)) return;
    if (Get(chunk)) stats_->prefetched.fetch_add(1);
  });
}

bool ChunkSource::Hydrate(const ChunkRef& chunk) {
  if (disk_ == nullptr) return Get(chunk).has_value();
  if (disk_->Contains(chunk.digest)) return true;
  if (ChunkPtr held = memory_->Lookup(chunk.digest)) {
    // A reader fetched it; its write may still be queued.
    disk_->Store(chunk.digest, *held);
    return true;
  }
  // Written before returning, so that a finished hydration means the
  // node cache holds the version.
  return FetchFromStore(chunk.digest, chunk.length, chunk.length,
                        /*write_through=*/true)
      .has_value();
}

}  // namespace sealvol
