// The system's side of mounts: unmounting (directly as root, through
// fusermount3 otherwise), telling a dead mount from a live one, and tuning
// a mount's readahead. Used by the FUSE server and the CLI.
//
// Thread safety: stateless; safe from any thread.
#ifndef SEALVOL_MOUNT_MOUNT_TABLE_H_
#define SEALVOL_MOUNT_MOUNT_TABLE_H_

#include <string>

#include "base/status.h"

namespace sealvol {

// Unmounts `mountpoint` (a FUSE mount). With `lazy`, detaches it even while
// files are open. FailedPrecondition ("busy") when files are open and not
// lazy; InvalidArgument when nothing is mounted there.
Status UnmountPath(const std::string& mountpoint, bool lazy);

// True when `path` is a mount whose server is gone ("Transport endpoint is
// not connected"), as a killed mount daemon leaves it.
bool IsStaleMount(const std::string& path);

// Sets the readahead of the mount at `mountpoint` to `kb` KiB, through its
// backing device info found in /proc/self/mountinfo (not by stat, which
// would wait on the mount's own server). Best effort: only root may write
// it, and the kernel resets it when it processes the mount's INIT.
void RaiseReadahead(const std::string& mountpoint, unsigned kb);

}  // namespace sealvol

#endif  // SEALVOL_MOUNT_MOUNT_TABLE_H_
