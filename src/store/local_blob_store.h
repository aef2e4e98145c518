// LocalBlobStore: blobs as files under `<root>/blobs/sha256/<2 hex>/<64 hex>`.
// Put is the atomic write (temp file, write, fsync, close, rename without
// replace, fsync the directory), so many processes may publish into one
// store at once and a crash leaves at most a `.tmp-*` file, which List skips
// and CollectTemp removes once it is old.
//
// Thread safety: safe for concurrent use by threads and processes.
#ifndef SEALVOL_STORE_LOCAL_BLOB_STORE_H_
#define SEALVOL_STORE_LOCAL_BLOB_STORE_H_

#include <memory>
#include <string>

#include "store/blob_store.h"

namespace sealvol {

class LocalBlobStore : public BlobStore {
 public:
  // Creates the layout under `root` when missing.
  static Result<std::unique_ptr<LocalBlobStore>> Open(const std::string& root);

  Result<bool> Put(const Digest& digest, std::string_view envelope) override;
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
  explicit LocalBlobStore(std::string root) : root_(std::move(root)) {}
  std::string root_;  // ends without '/'
};

}  // namespace sealvol

#endif  // SEALVOL_STORE_LOCAL_BLOB_STORE_H_
