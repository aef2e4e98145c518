// LocalBlobStore: blobs as files under `<root>/blobs/sha256/<2 hex>/<64 hex>`.
// Put writes a temp file beside the blob's final name; Sync makes a batch of
// them durable with one filesystem sync, renames each into place without
// replacing (a blob is never rewritten; another process may have stored the
// same bytes first), and syncs again. An fsync per blob would pay the
// device's flush latency for every chunk. Put syncs on its own once a batch
// holds `batch_bytes`, so a killed publish loses at most one batch.
// Many processes may write into one store at once; a crash leaves only
// `.tmp-*` files, which List skips and CollectTemp removes once old.
//
// Thread safety: safe for concurrent use by threads and processes.
#ifndef SEALVOL_STORE_LOCAL_BLOB_STORE_H_
#define SEALVOL_STORE_LOCAL_BLOB_STORE_H_

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "base/file.h"
#include "store/blob_store.h"

namespace sealvol {

class LocalBlobStore : public BlobStore {
 public:
  // Creates the layout under `root` when missing.
  static Result<std::unique_ptr<LocalBlobStore>> Open(
      const std::string& root, uint64_t batch_bytes = 256ull << 20);
  ~LocalBlobStore() override;  // abandons blobs never synced

  Result<bool> Put(const Digest& digest, std::string_view envelope) override;
  Status Sync() override;
  Result<std::string> Get(const Digest& digest) override;
  Result<bool> Has(const Digest& digest) override;
  Status Keep(const Digest& digest) override;
  Status Delete(const Digest& digest) override;
  Status List(const std::function<void(const BlobInfo&)>& fn) override;

  // Removes temp files older than `min_age_seconds` left by killed writers.
  // Returns how many were removed.
  Result<uint64_t> CollectTemp(int64_t min_age_seconds);

  std::string PathFor(const Digest& digest) const;

 private:
  LocalBlobStore(std::string root, uint64_t batch_bytes)
      : root_(std::move(root)), batch_bytes_(batch_bytes) {}
  // Commits the current batch. Other threads keep putting into a new batch
  // while the filesystem syncs. REQUIRES: sync_mu_ held.
  Status CommitBatch();

  const std::string root_;  // ends without '/'
  const uint64_t batch_bytes_;
  // Lock order: sync_mu_ before mu_. sync_mu_ serializes batch commits;
  // mu_ guards the pending set and is never held across I/O.
  std::mutex sync_mu_;
  std::mutex mu_;
  // Blobs written to temp files, not yet renamed into place.
  std::unordered_map<Digest, std::string, DigestHash>
      pending_;                 // GUARDED_BY(mu_)
  RenameBatch batch_;           // GUARDED_BY(mu_)
  uint64_t pending_bytes_ = 0;  // GUARDED_BY(mu_)
};

}  // namespace sealvol

#endif  // SEALVOL_STORE_LOCAL_BLOB_STORE_H_
