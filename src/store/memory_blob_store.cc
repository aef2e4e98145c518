#include "store/memory_blob_store.h"

namespace sealvol {

Result<bool> MemoryBlobStore::Put(const Digest& digest,
                                  std::string_view envelope) {
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, inserted] =
      blobs_.try_emplace(digest, Entry{std::string(envelope), now_});
  return inserted;
}

Result<std::string> MemoryBlobStore::Get(const Digest& digest) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = blobs_.find(digest);
  if (it == blobs_.end()) {
    return NotFound("blob " + digest.ToString() + " is not in the store");
  }
  return it->second.envelope;
}

Result<bool> MemoryBlobStore::Has(const Digest& digest) {
  std::lock_guard<std::mutex> lock(mu_);
  return blobs_.count(digest) > 0;
}

Status MemoryBlobStore::Keep(const Digest& digest) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = blobs_.find(digest);
  if (it == blobs_.end()) return NotFound("blob " + digest.ToString());
  it->second.mtime = now_;
  return Status::Ok();
}

Status MemoryBlobStore::Delete(const Digest& digest) {
  std::lock_guard<std::mutex> lock(mu_);
  blobs_.erase(digest);
  return Status::Ok();
}

Status MemoryBlobStore::List(const std::function<void(const BlobInfo&)>& fn) {
  std::map<Digest, Entry> copy;
  {
    std::lock_guard<std::mutex> lock(mu_);
    copy = blobs_;
  }
  for (const auto& [d, e] : copy) fn(BlobInfo{d, e.envelope.size(), e.mtime});
  return Status::Ok();
}

void MemoryBlobStore::Corrupt(const Digest& digest, std::string envelope) {
  std::lock_guard<std::mutex> lock(mu_);
  blobs_[digest] = Entry{std::move(envelope), now_};
}

}  // namespace sealvol
