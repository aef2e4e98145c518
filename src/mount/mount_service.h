// ServeMount: everything a running mount is, wired together: the node
// cache, the memory cache, the chunk source over a BlobStore, the
// filesystem, the FUSE server and signal handling. SIGTERM, SIGINT and
// SIGHUP detach the mount (open files keep working until closed); the
// function returns once the kernel lets go.
//
// Call it from a process with no other threads yet: it blocks the signals
// above in every thread it starts and waits for them on its own.
#ifndef SEALVOL_MOUNT_MOUNT_SERVICE_H_
#define SEALVOL_MOUNT_MOUNT_SERVICE_H_

#include <functional>
#include <string>

#include "format/manifest.h"
#include "mount/chunk_source.h"
#include "mount/volume_fs.h"
#include "store/blob_store.h"

namespace sealvol {

struct MountOptions {
  std::string mountpoint;
  std::string ref;  // what the user asked for, for logs and stats
  Digest digest;
  int64_t created = 0;  // the version's commit time: every entry's mtime
  std::string cache_dir;
  uint64_t cache_size = 20ull << 30;
  uint64_t memory_cache = 64ull << 20;
  Prefetch prefetch = Prefetch::kAuto;
  FetchOptions fetch;
  bool allow_other = false;
  std::string log_path;  // shown in stats; empty when logging to stderr
};

// Mounts `manifest` and serves it until unmounted. `ready` is called once:
// with OK when the filesystem is live, or with the error that stopped the
// mount before it was. `log` receives one line per event worth keeping.
Status ServeMount(BlobStore* store, Manifest manifest,
                  const MountOptions& options,
                  const std::function<void(const Status&)>& ready,
                  const std::function<void(const std::string&)>& log);

}  // namespace sealvol

#endif  // SEALVOL_MOUNT_MOUNT_SERVICE_H_
