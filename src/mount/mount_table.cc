#include "mount/mount_table.h"

#include <spawn.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <string>
#include <vector>

extern char** environ;

namespace sealvol {
namespace {

// /proc/self/mountinfo escapes space, tab, newline and backslash as \ooo.
std::string UnescapeMountField(const std::string& in) {
  std::string out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '\\' && i + 3 < in.size()) {
      out += static_cast<char>(std::stoi(in.substr(i + 1, 3), nullptr, 8));
      i += 3;
    } else {
      out += in[i];
    }
  }
  return out;
}

}  // namespace

// The kernel's readahead for a FUSE mount defaults to 128 KiB, so a
// sequential reader arrives in 256 KiB requests; a larger window lets it
// send 1 MiB requests (the most libfuse takes), a quarter of the round
// trips. Set through the mount's backing device info, found in mountinfo
// (not by stat, which would wait on this very server). Best effort: only
// root may write it.
void RaiseReadahead(const std::string& mountpoint, unsigned kb) {
  FILE* f = fopen("/proc/self/mountinfo", "r");
  if (f == nullptr) return;
  char line[4096];
  std::string dev;
  while (fgets(line, sizeof line, f) != nullptr) {
    char id[32], parent[32], majmin[64], root[1024], mp[2048];
    if (sscanf(line, "%31s %31s %63s %1023s %2047s", id, parent, majmin, root,
               mp) == 5 &&
        UnescapeMountField(mp) == mountpoint) {
      dev = majmin;  // the last match is the topmost mount
    }
  }
  fclose(f);
  if (dev.empty()) return;
  std::string path = "/sys/class/bdi/" + dev + "/read_ahead_kb";
  if (FILE* ra = fopen(path.c_str(), "w")) {
    fprintf(ra, "%u\n", kb);
    fclose(ra);
  }
}

Status UnmountPath(const std::string& mountpoint, bool lazy) {
  if (geteuid() == 0) {
    if (umount2(mountpoint.c_str(), lazy ? MNT_DETACH : 0) == 0) {
      return Status::Ok();
    }
    if (errno == EBUSY) {
      return FailedPrecondition(mountpoint +
                                " is busy: files are open on it (use --lazy "
                                "to detach it anyway)");
    }
    if (errno == EINVAL) return InvalidArgument(mountpoint + " is not mounted");
    return ErrnoStatus(errno, "unmount " + mountpoint);
  }
  std::vector<std::string> argv_s = {"fusermount3", "-u", "-q"};
  if (lazy) argv_s.push_back("-z");
  argv_s.push_back(mountpoint);
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid;
  if (posix_spawnp(&pid, "fusermount3", nullptr, nullptr, argv.data(),
                   environ) != 0) {
    return IOError("cannot run fusermount3 (install fuse3)");
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return Status::Ok();
  return FailedPrecondition("fusermount3 could not unmount " + mountpoint +
                            " (busy, or not mounted)");
}

bool IsStaleMount(const std::string& path) {
  // statfs always reaches the server (stat may be answered from the
  // kernel's attribute cache, which a mount keeps forever).
  struct statvfs sv;
  return statvfs(path.c_str(), &sv) != 0 && errno == ENOTCONN;
}

}  // namespace sealvol
