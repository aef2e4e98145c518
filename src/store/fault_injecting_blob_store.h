// FaultInjectingBlobStore: forwards to another BlobStore and fails chosen
// calls, so tests can drive every error path (the Nth Put fails, every Get
// of one digest fails, ...).
//
// Thread safety: safe for concurrent use; the call counter is atomic.
#ifndef SEALVOL_STORE_FAULT_INJECTING_BLOB_STORE_H_
#define SEALVOL_STORE_FAULT_INJECTING_BLOB_STORE_H_

#include <atomic>

#include "store/blob_store.h"

namespace sealvol {

class FaultInjectingBlobStore : public BlobStore {
 public:
  explicit FaultInjectingBlobStore(BlobStore* base) : base_(base) {}

  // The Nth call (1-based, counting every method) and all later ones fail
  // with `status` until Heal(). 0 disables.
  void FailFromCall(uint64_t n, Status status = IOError("injected fault")) {
    fail_status_ = std::move(status);
    fail_from_ = n;
  }
  void Heal() { fail_from_ = 0; }
  uint64_t calls() const { return calls_; }

  Result<bool> Put(const Digest& d, std::string_view env) override;
  Status Sync() override;
  Result<std::string> Get(const Digest& d) override;
  Result<bool> Has(const Digest& d) override;
  Status Keep(const Digest& d) override;
  Status Delete(const Digest& d) override;
  Status List(const std::function<void(const BlobInfo&)>& fn) override;

 private:
  Status Check();

  BlobStore* base_;
  std::atomic<uint64_t> calls_{0};
  std::atomic<uint64_t> fail_from_{0};
  Status fail_status_;  // written only before calls start
};

}  // namespace sealvol

#endif  // SEALVOL_STORE_FAULT_INJECTING_BLOB_STORE_H_
