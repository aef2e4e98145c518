// CopyVersion: copies one version between any two repositories (embedded
// store, remote registry), transferring only the blobs the destination
// lacks. Every blob is verified against its digest as it is read, before
// it is offered to the destination; the version is committed only after
// all its blobs are there, so an interrupted copy leaves nothing visible
// and a re-run transfers only what is still missing.
//
// Thread safety: CopyVersion runs its own workers; the progress counters
// may be read from any thread while it runs.
#ifndef SEALVOL_REGISTRY_COPY_H_
#define SEALVOL_REGISTRY_COPY_H_

#include <atomic>
#include <cstdint>
#include <string>

#include "registry/repository.h"

namespace sealvol {

struct CopyProgress {
  std::atomic<uint64_t> blobs_total{0};    // blobs the version names
  std::atomic<uint64_t> blobs_missing{0};  // of those, the destination lacks
  std::atomic<uint64_t> blobs_copied{0};
  std::atomic<uint64_t> bytes_copied{0};  // envelope bytes
};

struct CopyResult {
  Digest digest;
  uint64_t blobs_total = 0;
  uint64_t blobs_copied = 0;
  uint64_t bytes_copied = 0;
};

// Copies `src_volume@digest` from `src` into `dst_volume` of `dst`, with
// the source version's annotations plus "copied_from". `threads` blobs
// move at once.
Result<CopyResult> CopyVersion(Repository& src, const std::string& src_volume,
                               const Digest& digest, Repository& dst,
                               const std::string& dst_volume, unsigned threads,
                               CopyProgress* progress = nullptr);

}  // namespace sealvol

#endif  // SEALVOL_REGISTRY_COPY_H_
