// MemoryBlobStore: a BlobStore in a map, for fast unit tests. Behaves like
// LocalBlobStore (Put never replaces, Delete is idempotent) with a clock the
// test controls for mtimes.
//
// Thread safety: safe for concurrent use.
#ifndef SEALVOL_STORE_MEMORY_BLOB_STORE_H_
#define SEALVOL_STORE_MEMORY_BLOB_STORE_H_

#include <map>
#include <mutex>

#include "store/blob_store.h"

namespace sealvol {

class MemoryBlobStore : public BlobStore {
 public:
  Result<bool> Put(const Digest& digest, std::string_view envelope) override;
  Status Sync() override { return Status::Ok(); }
  Result<std::string> Get(const Digest& digest) override;
  Result<bool> Has(const Digest& digest) override;
  Status Keep(const Digest& digest) override;
  Status Delete(const Digest& digest) override;
  Status List(const std::function<void(const BlobInfo&)>& fn) override;

  void set_now(int64_t now) {
    std::lock_guard<std::mutex> lock(mu_);
    now_ = now;
  }
  // Overwrites a blob's bytes, for corruption tests.
  void Corrupt(const Digest& digest, std::string envelope);

 private:
  struct Entry {
    std::string envelope;
    int64_t mtime;
  };
  std::mutex mu_;
  std::map<Digest, Entry> blobs_;  // GUARDED_BY(mu_)
  int64_t now_ = 1;                // GUARDED_BY(mu_)
};

}  // namespace sealvol

#endif  // SEALVOL_STORE_MEMORY_BLOB_STORE_H_
