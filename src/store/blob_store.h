// BlobStore: where envelopes live, addressed by the digest of their decoded
// bytes (docs/format.md, "Store layout"). Implementations: LocalBlobStore (a
// directory), MemoryBlobStore (tests); wrappers such as
// FaultInjectingBlobStore forward to another store.
//
// A store is dumb on purpose: it neither decodes nor hashes. Readers verify
// through ReadBlob (store/blob_reader.h); whoever accepts untrusted bytes
// verifies them before Put.
//
// Thread safety: every implementation is safe for concurrent use from many
// threads, and LocalBlobStore from many processes.
#ifndef SEALVOL_STORE_BLOB_STORE_H_
#define SEALVOL_STORE_BLOB_STORE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "hash/digest.h"

namespace sealvol {

struct BlobInfo {
  Digest digest;
  uint64_t stored_size = 0;  // envelope bytes
  int64_t mtime = 0;         // unix seconds of the last Put or Keep
};

// Envelopes larger than this are refused by Get (the largest legal blob is a
// 64 MiB manifest plus its codec byte).
inline constexpr uint64_t kMaxEnvelopeSize = (64ull << 20) + 1;

class BlobStore {
 public:
  virtual ~BlobStore() = default;

  // Stores `envelope` under `digest`, atomically: readers see nothing or the
  // whole blob. Returns true when written, false when the blob already
  // existed (it is then left untouched: a blob is never rewritten). Safe to
  // retry. A stored blob is visible to this object at once (Has, Get) and
  // durable and visible to every reader once Sync returns; a store may sync
  // on its own earlier. REQUIRES: envelope decodes to bytes whose SHA-256 is
  // `digest`.
  virtual Result<bool> Put(const Digest& digest, std::string_view envelope) = 0;

  // Makes every blob this object has Put durable and visible to all. A
  // version must not be committed before the Sync after its last Put.
  virtual Status Sync() = 0;

  // The stored envelope. NotFound when absent; IOError/Unavailable when the
  // store cannot be read.
  virtual Result<std::string> Get(const Digest& digest) = 0;

  virtual Result<bool> Has(const Digest& digest) = 0;

  // Marks an existing blob as just used, so a concurrent GC's grace period
  // protects it while a publish that reuses it is still in progress.
  // NotFound when absent.
  virtual Status Keep(const Digest& digest) = 0;

  // Removes a blob. OK when it was already absent (idempotent).
  virtual Status Delete(const Digest& digest) = 0;

  // Calls `fn` once per stored blob, in no particular order.
  virtual Status List(const std::function<void(const BlobInfo&)>& fn) = 0;

  // Keep for each of `digests`; returns those absent, in the order given.
  // Stores that can refresh many at once (S3BlobStore) override this.
  virtual Result<std::vector<Digest>> KeepAll(
      const std::vector<Digest>& digests) {
    std::vector<Digest> absent;
    for (const Digest& d : digests) {
      Status s = Keep(d);
      if (s.code() == StatusCode::kNotFound) {
        absent.push_back(d);
      } else if (!s.ok()) {
        return s;
      }
    }
    return absent;
  }

  // Those of `digests` the store lacks, in the order given. Stores that can
  // answer many at once (a remote registry) override this.
  virtual Result<std::vector<Digest>> Missing(
      const std::vector<Digest>& digests) {
    std::vector<Digest> out;
    for (const Digest& d : digests) {
      auto has = Has(d);
      if (!has) return has.error();
      if (!*has) out.push_back(d);
    }
    return out;
  }
};

}  // namespace sealvol

#endif  // SEALVOL_STORE_BLOB_STORE_H_
