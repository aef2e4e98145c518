// FuseServer: serves a VolumeFs through the kernel's FUSE interface
// (libfuse 3, low-level API). The only file that speaks FUSE.
//
// Versions never change, so the kernel may cache everything: entries,
// negative lookups, attributes and file pages are all kept for as long as
// the mount lives. The mount is read-only (EROFS for any change).
// The root directory's extended attribute `user.sealvol.stats` answers with
// the mount's statistics as JSON (how `sealvol stats` reads them); no
// other attribute exists.
//
// Thread safety: Serve runs the request loop on libfuse's worker threads;
// Unmount may be called from any thread (e.g. a signal thread).
#ifndef SEALVOL_MOUNT_FUSE_SERVER_H_
#define SEALVOL_MOUNT_FUSE_SERVER_H_

#include <functional>
#include <memory>
#include <string>

#include "base/status.h"
#include "mount/volume_fs.h"

namespace sealvol {

inline constexpr const char* kStatsXattr = "user.sealvol.stats";

struct MountConfig {
  std::string mountpoint;
  std::string fsname;        // shown in /proc/mounts, e.g. "sealvol:acme/m"
  bool allow_other = false;  // let other users read the mount
  unsigned max_threads = 16;
  // Log one line (a read that failed, why the loop ended).
  std::function<void(const std::string&)> log;
  // The statistics served through kStatsXattr.
  std::function<std::string()> stats_json;
};

class FuseServer {
 public:
  // Mounts the filesystem; returns once the kernel has it. Requests are
  // answered only once Serve runs.
  static Result<std::unique_ptr<FuseServer>> Mount(VolumeFs* fs,
                                                   MountStats* stats,
                                                   MountConfig config);
  ~FuseServer();

  // Answers requests until the filesystem is unmounted (by `umount`, by
  // Unmount, or by the kernel), then returns.
  Status Serve();

  // Detaches the mount (lazily: open files keep working until closed);
  // Serve returns once the kernel lets go.
  void Unmount();

 private:
  FuseServer() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sealvol

#endif  // SEALVOL_MOUNT_FUSE_SERVER_H_
