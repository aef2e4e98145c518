#include <signal.h>
#include <sys/xattr.h>

#include <chrono>
#include <iostream>
#include <thread>

#include "cli/commands.h"
#include "mount/fuse_server.h"
#include "mount/mount_table.h"

namespace sealvol::cli {

// The mount's statistics (a JSON object) through the root's extended
// attribute (mount/fuse_server.h).
Result<nlohmann::json> ReadMountStats(const std::string& mountpoint) {
  std::string buf(64 << 10, '\0');
  ssize_t n = getxattr(mountpoint.c_str(), kStatsXattr, buf.data(), buf.size());
  if (n < 0) {
    if (errno == ENODATA || errno == ENOTSUP) {
      return InvalidArgument(mountpoint + " is not a sealvol mount");
    }
    return ErrnoStatus(errno, mountpoint);
  }
  buf.resize(static_cast<size_t>(n));
  auto j = nlohmann::json::parse(buf, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded())
    return Corruption("unreadable stats from " + mountpoint);
  return j;
}

void RegisterUmount(CLI::App& app, Globals& g) {
  struct Args {
    std::string mountpoint;
    bool lazy = false;
    double wait = 30;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "umount",
      "Unmount a sealvol mount and wait for its daemon to exit. Refuses "
      "while files are open unless --lazy, which detaches it at once and "
      "lets open files finish.");
  cmd->add_option("MOUNTPOINT", a->mountpoint, "Where the version is mounted")
      ->required();
  cmd->add_flag("--lazy", a->lazy,
                "Detach now even while files are open; they keep working "
                "until closed");
  cmd->add_option("--wait", a->wait,
                  "Seconds to wait for the daemon to exit (default 30)");
  cmd->add_flag("--json", g.json, "Print what happened as JSON");
  cmd->callback([&g, a] {
    RunNoStore([&]() -> Status {
      if (IsStaleMount(a->mountpoint)) {
        SV_RETURN_IF_ERROR(UnmountPath(a->mountpoint, /*lazy=*/true));
        if (g.json) {
          PrintJson({{"mountpoint", a->mountpoint}, {"stale", true}});
        } else if (!g.quiet) {
          std::cerr << "detached " << a->mountpoint
                    << " (its daemon had already died)\n";
        }
        return Status::Ok();
      }
      SV_ASSIGN_OR_RETURN(nlohmann::json stats, ReadMountStats(a->mountpoint));
      pid_t pid = stats.value("pid", 0);
      std::string mp = stats.value("mountpoint", a->mountpoint);
      SV_RETURN_IF_ERROR(UnmountPath(mp, a->lazy));
      // Without open files the daemon exits at once; wait so that a
      // script's next step sees it gone. With --lazy it serves until the
      // last open file is closed.
      bool exited = false;
      auto deadline =
          std::chrono::steady_clock::now() +
          std::chrono::milliseconds(static_cast<int64_t>(a->wait * 1000));
      while (pid > 0 && !a->lazy &&
             std::chrono::steady_clock::now() < deadline) {
        if (kill(pid, 0) != 0) {
          exited = true;
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      if (g.json) {
        PrintJson({{"mountpoint", mp},
                   {"pid", pid},
                   {"lazy", a->lazy},
                   {"daemon_exited", exited}});
      } else if (!g.quiet) {
        std::cerr << "unmounted " << mp
                  << (a->lazy  ? " (detached; the daemon exits when the last "
                                 "open file is closed)"
                      : exited ? ""
                               : " (the daemon is still finishing)")
                  << "\n";
      }
      return Status::Ok();
    });
  });
}

}  // namespace sealvol::cli
