// NamespacedBlobStore: a BlobStore as one namespace of a shared registry
// sees it. A blob is there only when it is both stored and linked to the
// namespace (MetaStore::LinkBlobs); a Put stores (or finds) the blob and
// links it. So a tenant cannot read or probe another tenant's blobs by
// digest, while the bytes are still stored once.
//
// Thread safety: as safe as the stores it wraps.
#ifndef SEALVOL_REGISTRY_NAMESPACED_BLOB_STORE_H_
#define SEALVOL_REGISTRY_NAMESPACED_BLOB_STORE_H_

#include <string>

#include "meta/meta_store.h"
#include "store/blob_store.h"

namespace sealvol {

class NamespacedBlobStore : public BlobStore {
 public:
  NamespacedBlobStore(BlobStore* base, MetaStore* meta, std::string ns)
      : base_(base), meta_(meta), ns_(std::move(ns)) {}

  // True when the namespace did not have the blob before (whether or not
  // the bytes were already stored for another namespace).
  Result<bool> Put(const Digest& digest, std::string_view envelope) override;
  Status Sync() override { return base_->Sync(); }
  Result<std::string> Get(const Digest& digest) override;
  Result<bool> Has(const Digest& digest) override;
  Status Keep(const Digest& digest) override;
  // Unlinking is not offered: blobs leave only through GC of the base.
  Status Delete(const Digest& digest) override;
  Status List(const std::function<void(const BlobInfo&)>& fn) override;

  // Those of `digests` this namespace lacks (one query per digest, no
  // store access for unlinked ones). Present ones are kept (Keep), so a
  // concurrent GC's grace period protects what a publish will reuse.
  Result<std::vector<Digest>> Missing(
      const std::vector<Digest>& digests) override;

  // Whether the namespace may see the blob (it is linked there), without
  // asking the store underneath.
  Result<bool> Linked(const Digest& digest);

 private:
  BlobStore* base_;
  MetaStore* meta_;
  std::string ns_;
};

}  // namespace sealvol

#endif  // SEALVOL_REGISTRY_NAMESPACED_BLOB_STORE_H_
