// Pull and verify: read a version back through a BlobStore.
//
// Pull materializes a manifest into a local directory. It writes nothing
// outside that directory (it refuses to write through a symlink or a file
// standing where the manifest needs a directory), writes each file to a
// temp file beside it and renames it into place only once every chunk and
// the whole-file SHA-256 have been verified, and skips files that are
// already identical. Finished files are made durable in batches (one
// filesystem sync, then the renames, then another sync).
//
// Verify re-reads and re-hashes every blob of a version and reports each
// missing or corrupt one by path, chunk number and offset.
//
// Thread safety: reentrant; uses its own thread pool per call.
#ifndef SEALVOL_PULL_PULLER_H_
#define SEALVOL_PULL_PULLER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "format/manifest.h"
#include "store/blob_store.h"

namespace sealvol {

struct PullOptions {
  unsigned threads = 0;                 // 0 = one per core
  uint64_t batch_bytes = 256ull << 20;  // files renamed into place per sync
};

struct PullStats {
  uint64_t files_written = 0;
  uint64_t files_skipped = 0;  // already identical
  uint64_t bytes_written = 0;
  uint64_t bytes_skipped = 0;
};

// Progress in bytes, for display: bytes of files finished (written or
// skipped) out of the manifest's total.
struct PullProgress {
  std::atomic<uint64_t> total_bytes{0};
  std::atomic<uint64_t> done_bytes{0};
};

Result<PullStats> Pull(BlobStore& store, const Manifest& manifest,
                       const std::string& dir, const PullOptions& options,
                       PullProgress* progress = nullptr);

struct VerifyProblem {
  std::string path;
  int64_t chunk = -1;   // chunk number, or -1 for the file or its index
  uint64_t offset = 0;  // byte offset of that chunk in the file
  std::string digest;   // the blob that failed
  std::string what;     // the error
};

struct VerifyReport {
  uint64_t files = 0;
  uint64_t chunks = 0;
  uint64_t bytes = 0;
  std::vector<VerifyProblem> problems;
};

Result<VerifyReport> Verify(BlobStore& store, const Manifest& manifest,
                            unsigned threads = 0);

// Writes one file's verified bytes to `out`; Corruption/NotFound naming the
// chunk on failure (bytes before it have been written).
Status CatFile(BlobStore& store, const ManifestEntry& file,
               const std::function<Status(std::string_view)>& out);

}  // namespace sealvol

#endif  // SEALVOL_PULL_PULLER_H_
