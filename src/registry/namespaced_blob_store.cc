#include "registry/namespaced_blob_store.h"

namespace sealvol {

Result<bool> NamespacedBlobStore::Linked(const Digest& digest) {
  SV_ASSIGN_OR_RETURN(auto unlinked, meta_->UnlinkedBlobs(ns_, {digest}));
  return unlinked.empty();
}

Result<bool> NamespacedBlobStore::Put(const Digest& digest,
                                      std::string_view envelope) {
  SV_ASSIGN_OR_RETURN(bool linked, Linked(digest));
  SV_ASSIGN_OR_RETURN(bool written, base_->Put(digest, envelope));
  if (!written) SV_RETURN_IF_ERROR(base_->Keep(digest));
  if (!linked) SV_RETURN_IF_ERROR(meta_->LinkBlobs(ns_, {digest}));
  return !linked;
}

Result<std::string> NamespacedBlobStore::Get(const Digest& digest) {
  SV_ASSIGN_OR_RETURN(bool linked, Linked(digest));
  if (!linked) return NotFound("blob " + digest.ToString() + " not found");
  return base_->Get(digest);
}

Result<bool> NamespacedBlobStore::Has(const Digest& digest) {
  SV_ASSIGN_OR_RETURN(bool linked, Linked(digest));
  if (!linked) return false;
  return base_->Has(digest);
}

Status NamespacedBlobStore::Keep(const Digest& digest) {
  SV_ASSIGN_OR_RETURN(bool linked, Linked(digest));
  if (!linked) return NotFound("blob " + digest.ToString() + " not found");
  return base_->Keep(digest);
}

Status NamespacedBlobStore::Delete(const Digest&) {
  return Status(StatusCode::kFailedPrecondition,
                "blobs are removed by garbage collection only");
}

Status NamespacedBlobStore::List(const std::function<void(const BlobInfo&)>&) {
  return Status(StatusCode::kFailedPrecondition,
                "a namespace's blobs cannot be listed");
}

Result<std::vector<Digest>> NamespacedBlobStore::Missing(
    const std::vector<Digest>& digests) {
  SV_ASSIGN_OR_RETURN(auto missing, meta_->UnlinkedBlobs(ns_, digests));
  std::vector<Digest> out;
  size_t m = 0;
  for (const Digest& d : digests) {
    if (m < missing.size() && missing[m] == d) {
      out.push_back(d);
      ++m;
      continue;
    }
    // Linked: still there? (GC may have removed an unreferenced blob.)
    Status kept = base_->Keep(d);
    if (kept.code() == StatusCode::kNotFound) {
      out.push_back(d);
    } else if (!kept.ok()) {
      return kept;
    }
  }
  return out;
}

}  // namespace sealvol
