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
  SV_ASSIGN_OR_RETURN(auto unlinked, meta_->UnlinkedBlobs(ns_, digests));
  // Linked blobs: still there? (GC may have removed an unreferenced one.)
  // Keeping them also protects them from GC while this publish goes on.
  std::vector<Digest> linked;
  size_t m = 0;
  for (const Digest& d : digests) {
    if (m < unlinked.size() && unlinked[m] == d) {
      ++m;
    } else {
      linked.push_back(d);
    }
  }
  SV_ASSIGN_OR_RETURN(auto gone, base_->KeepAll(linked));
  std::vector<Digest> out;
  size_t u = 0, g = 0;
  for (const Digest& d : digests) {
    if (u < unlinked.size() && unlinked[u] == d) {
      out.push_back(d);
      ++u;
    } else if (g < gone.size() && gone[g] == d) {
      out.push_back(d);
      ++g;
    }
  }
  return out;
}

}  // namespace sealvol
