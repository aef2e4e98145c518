#include "store/fault_injecting_blob_store.h"

namespace sealvol {

Status FaultInjectingBlobStore::Check() {
  uint64_t n = ++calls_;
  uint64_t from = fail_from_;
  if (from != 0 && n >= from) return fail_status_;
  return Status::Ok();
}

Result<bool> FaultInjectingBlobStore::Put(const Digest& d,
                                          std::string_view env) {
  SV_RETURN_IF_ERROR(Check());
  return base_->Put(d, env);
}

Status FaultInjectingBlobStore::Sync() {
  SV_RETURN_IF_ERROR(Check());
  return base_->Sync();
}

Result<std::string> FaultInjectingBlobStore::Get(const Digest& d) {
  SV_RETURN_IF_ERROR(Check());
  return base_->Get(d);
}

Result<bool> FaultInjectingBlobStore::Has(const Digest& d) {
  SV_RETURN_IF_ERROR(Check());
  return base_->Has(d);
}

Status FaultInjectingBlobStore::Keep(const Digest& d) {
  SV_RETURN_IF_ERROR(Check());
  return base_->Keep(d);
}

Status FaultInjectingBlobStore::Delete(const Digest& d) {
  SV_RETURN_IF_ERROR(Check());
  return base_->Delete(d);
}

Status FaultInjectingBlobStore::List(
    const std::function<void(const BlobInfo&)>& fn) {
  SV_RETURN_IF_ERROR(Check());
  return base_->List(fn);
}

}  // namespace sealvol
