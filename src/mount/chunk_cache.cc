#include "mount/chunk_cache.h"

namespace sealvol {

Result<ChunkPtr> ChunkCache::GetOrFetch(
    const Digest& digest, const std::function<Result<ChunkPtr>()>& fetch,
    bool* fetched) {
  if (fetched) *fetched = false;
  std::shared_ptr<Flight> flight;
  {
    std::unique_lock lock(mu_);
    if (auto it = entries_.find(digest); it != entries_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second.lru_pos);
      return it->second.data;
    }
    if (auto it = flights_.find(digest); it != flights_.end()) {
      std::shared_ptr<Flight> theirs = it->second;
      flight_cv_.wait(lock, [&] { return theirs->done; });
      return theirs->result;
    }
    flight = std::make_shared<Flight>();
    flights_.emplace(digest, flight);
  }
  Result<ChunkPtr> result = fetch();
  if (fetched) *fetched = true;
  {
    std::lock_guard lock(mu_);
    if (result) InsertLocked(digest, *result);
    flight->result = result;
    flight->done = true;
    flights_.erase(digest);
  }
  flight_cv_.notify_all();
  return result;
}

ChunkPtr ChunkCache::Lookup(const Digest& digest) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(digest);
  if (it == entries_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second.lru_pos);
  return it->second.data;
}

bool ChunkCache::PresentOrPending(const Digest& digest) {
  std::lock_guard lock(mu_);
  return entries_.count(digest) > 0 || flights_.count(digest) > 0;
}

uint64_t ChunkCache::bytes() const {
  std::lock_guard lock(mu_);
  return bytes_;
}

void ChunkCache::InsertLocked(const Digest& digest, ChunkPtr data) {
  if (entries_.count(digest) > 0) return;
  bytes_ += data->size();
  lru_.push_front(digest);
  entries_.emplace(digest, Entry{std::move(data), lru_.begin()});
  // Evict from the cold end, but never the chunk just added: a reader is
  // about to use it even when it alone exceeds the budget.
  while (bytes_ > capacity_ && lru_.size() > 1) {
    auto it = entries_.find(lru_.back());
    bytes_ -= it->second.data->size();
    entries_.erase(it);
    lru_.pop_back();
  }
}

}  // namespace sealvol
