#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <iostream>

#include "base/file.h"
#include "cli/commands.h"
#include "mount/fuse_server.h"
#include "mount/mount_service.h"
#include "mount/mount_table.h"

namespace sealvol::cli {
namespace {

// <cache-dir>/logs/<mountpoint with '/' as '_'>.log
std::string DefaultLogPath(const std::string& cache_dir,
                           const std::string& mountpoint) {
  std::string name = mountpoint;
  for (char& c : name) {
    if (c == '/') c = '_';
  }
  return cache_dir + "/logs/mount" + name + ".log";
}

// One timestamped line per event, flushed at once (the daemon may be
// killed at any moment).
std::function<void(const std::string&)> LogTo(FILE* f) {
  return [f](const std::string& line) {
    fprintf(f, "%s %s\n", FormatTime(time(nullptr)).c_str(), line.c_str());
    fflush(f);
  };
}

struct MountArgs {
  std::string ref;
  std::string mountpoint;
  bool foreground = false;
  std::string cache_dir;
  uint64_t cache_size = 20ull << 30;
  uint64_t memory_cache = 64ull << 20;
  std::string prefetch = "auto";
  std::string log_path;
  bool allow_other = false;
  double retry_for = 30;
};

// Resolves the ref and reads the manifest (the only data read before the
// mount is live), with the store closed again before any fork. Exits with
// the error itself (through Run).
// Returns how to open the version's blobs in the process that serves them
// (after the fork, so no connection or file is shared with the parent).
using BlobOpener = std::function<Result<std::unique_ptr<BlobStore>>()>;
BlobOpener Prepare(const Globals& g, const MountArgs& a, Manifest* manifest,
                   MountOptions* o) {
  BlobOpener opener;
  RunTarget(g, EmbeddedStore::Lock::kNone, [&](Target& st) -> Status {
    SV_ASSIGN_OR_RETURN(Resolved r, ResolveRef(st.repo(), a.ref));
    if (st.remote()) {
      // Retries belong to the chunk source (--retry-for), not the client.
      std::string volume = r.ref.volume;
      opener = [remote = *st.remote(),
                volume]() -> Result<std::unique_ptr<BlobStore>> {
        HttpClientOptions ho;
        ho.base_url = remote.url;
        ho.token = remote.token;
        ho.ca_file = remote.ca_file;
        ho.retry_for = std::chrono::milliseconds(0);
        return std::unique_ptr<BlobStore>(
            new RemoteBlobStore(std::make_shared<HttpClient>(ho), volume));
      };
    } else {
      opener =
          [root =
               st.embedded()->root()]() -> Result<std::unique_ptr<BlobStore>> {
        SV_ASSIGN_OR_RETURN(auto blobs, LocalBlobStore::Open(root));
        return std::unique_ptr<BlobStore>(std::move(blobs));
      };
    }
    auto rec = st.repo().GetVersion(r.ref.volume, r.digest);
    o->created = rec ? rec->created : 0;
    o->ref = r.ref.volume + "@" + r.digest.ToString();
    o->digest = r.digest;
    *manifest = std::move(r.manifest);
    return Status::Ok();
  });
  return opener;
}

Status CheckMountpoint(const std::string& mp) {
  if (auto live = ReadMountStats(mp)) {
    // Mounting over a live mount would hide it; say what is there instead.
    return AlreadyExists(
        mp + " already has " + live->value("ref", "a version") +
        " mounted (daemon pid " + std::to_string(live->value("pid", 0)) +
        "); unmount it first");
  }
  if (IsStaleMount(mp)) {
    // A mount whose daemon was killed: detach it so this one can take over.
    std::cerr << "sealvol: " << mp
              << " held a dead mount (its daemon was killed); detaching it\n";
    SV_RETURN_IF_ERROR(UnmountPath(mp, /*lazy=*/true));
  }
  struct stat st;
  if (stat(mp.c_str(), &st) != 0) return ErrnoStatus(errno, "mountpoint " + mp);
  if (!S_ISDIR(st.st_mode)) {
    return InvalidArgument("mountpoint " + mp + " is not a directory");
  }
  return Status::Ok();
}

void Announce(const Globals& g, const MountArgs& a, const MountOptions& o,
              pid_t pid) {
  if (g.json) {
    PrintJson({{"mountpoint", o.mountpoint},
               {"ref", a.ref},
               {"digest", o.digest.ToString()},
               {"pid", pid},
               {"log", o.log_path},
               {"cache_dir", o.cache_dir}});
    return;
  }
  std::cout << o.digest.ToString() << "\n";
  if (!g.quiet) {
    std::cerr << "mounted " << a.ref << " (" << o.digest.Short() << ") at "
              << o.mountpoint << " read-only; "
              << (a.foreground ? "serving until unmounted (Ctrl-C)"
                               : "daemon pid " + std::to_string(pid) +
                                     ", log " + o.log_path)
              << "\n";
  }
}

Status DoMount(const Globals& g, const MountArgs& a) {
  MountOptions o;
  Manifest manifest;
  o.mountpoint = a.mountpoint;
  o.cache_dir = a.cache_dir.empty() ? DefaultCacheDir() : a.cache_dir;
  o.cache_size = a.cache_size;
  o.memory_cache = a.memory_cache;
  o.prefetch = a.prefetch == "none"  ? Prefetch::kNone
               : a.prefetch == "all" ? Prefetch::kAll
                                     : Prefetch::kAuto;
  o.fetch.retry_for =
      std::chrono::milliseconds(static_cast<int64_t>(a.retry_for * 1000));
  o.allow_other = a.allow_other || geteuid() == 0;
  SV_RETURN_IF_ERROR(CheckMountpoint(a.mountpoint));
  BlobOpener open_blobs = Prepare(g, a, &manifest, &o);
  char real[PATH_MAX];
  if (realpath(a.mountpoint.c_str(), real) == nullptr) {
    return ErrnoStatus(errno, "mountpoint " + a.mountpoint);
  }
  o.mountpoint = real;

  if (a.foreground) {
    o.log_path = a.log_path;
    FILE* logf = a.log_path.empty() ? stderr : fopen(a.log_path.c_str(), "a");
    if (logf == nullptr) return ErrnoStatus(errno, "log " + a.log_path);
    auto log = LogTo(logf);
    SV_ASSIGN_OR_RETURN(auto blobs, open_blobs());
    return ServeMount(
        blobs.get(), std::move(manifest), o,
        [&](const Status& s) {
          if (s.ok()) Announce(g, a, o, getpid());
        },
        log);
  }

  o.log_path = a.log_path.empty() ? DefaultLogPath(o.cache_dir, o.mountpoint)
                                  : a.log_path;
  SV_RETURN_IF_ERROR(MakeDirs(o.log_path.substr(0, o.log_path.rfind('/'))));
  int logfd =
      open(o.log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (logfd < 0) return ErrnoStatus(errno, "log " + o.log_path);
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) return ErrnoStatus(errno, "pipe");
  std::cout.flush();
  std::cerr.flush();
  pid_t pid = fork();
  if (pid < 0) return ErrnoStatus(errno, "fork");
  if (pid == 0) {
    // The daemon: its own session, no terminal, output to the log.
    close(pipefd[0]);
    setsid();
    int devnull = open("/dev/null", O_RDWR);
    dup2(devnull, 0);
    if (devnull > 0) close(devnull);
    dup2(logfd, 1);
    dup2(logfd, 2);
    auto log = LogTo(fdopen(dup(logfd), "a"));
    int ready_fd = pipefd[1];
    auto ready = [&](const Status& s) {
      // "ok", or "<status code> <message>" so the parent rebuilds the
      // same Status (and exit code).
      std::string msg = s.ok() ? "ok"
                               : std::to_string(static_cast<int>(s.code())) +
                                     " " + s.message();
      (void)!write(ready_fd, msg.data(), msg.size());
      close(ready_fd);
      ready_fd = -1;
    };
    Status s = [&]() -> Status {
      auto blobs = open_blobs();
      if (!blobs) {
        ready(blobs.error());
        return blobs.error();
      }
      return ServeMount(blobs->get(), std::move(manifest), o, ready, log);
    }();
    if (!s.ok()) log("mount ended with an error: " + s.ToString());
    _exit(s.ok() ? 0 : 1);
  }
  close(pipefd[1]);
  close(logfd);
  std::string msg;
  char buf[512];
  ssize_t n;
  while ((n = read(pipefd[0], buf, sizeof buf)) != 0) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    msg.append(buf, static_cast<size_t>(n));
  }
  close(pipefd[0]);
  if (msg == "ok") {
    Announce(g, a, o, pid);
    return Status::Ok();
  }
  if (msg.empty()) {
    return IOError("the mount daemon exited before the mount was live; see " +
                   o.log_path);
  }
  size_t sp = msg.find(' ');
  int code = std::atoi(msg.substr(0, sp).c_str());
  std::string text = sp == std::string::npos ? msg : msg.substr(sp + 1);
  if (code <= 0 || code > static_cast<int>(StatusCode::kFailedPrecondition)) {
    return IOError(text);
  }
  return Status(static_cast<StatusCode>(code), text);
}

}  // namespace

void RegisterMount(CLI::App& app, Globals& g) {
  auto a = std::make_shared<MountArgs>();
  auto* cmd = app.add_subcommand(
      "mount",
      "Mount a version read-only at MOUNTPOINT. Returns as soon as the "
      "filesystem is live (only the manifest is read first); file data is "
      "fetched as it is read, verified chunk by chunk, and kept in the node "
      "cache shared by every mount. Runs as a daemon unless -f; stop it "
      "with `sealvol umount`.");
  cmd->add_option("REF", a->ref, "VOLUME[:TAG] or VOLUME@DIGEST")->required();
  cmd->add_option("MOUNTPOINT", a->mountpoint, "An existing directory")
      ->required();
  cmd->add_flag("-f,--foreground", a->foreground,
                "Serve in the foreground; SIGINT/SIGTERM unmount");
  cmd->add_option("--cache-dir", a->cache_dir,
                  "Node cache (default $SEALVOL_CACHE_DIR, else "
                  "~/.cache/sealvol)");
  cmd->add_option("--cache-size", a->cache_size,
                  "Node cache limit, least recently used evicted (default "
                  "20G; 0: no node cache)")
      ->transform(CLI::AsSizeValue(false));
  cmd->add_option("--memory-cache", a->memory_cache,
                  "Decoded chunks kept in memory (default 64M; the kernel page "
                  "cache holds file pages besides)")
      ->transform(CLI::AsSizeValue(false));
  cmd->add_option("--prefetch", a->prefetch,
                  "auto: read ahead of sequential readers; all: also fetch "
                  "the whole version in the background; none: only what is "
                  "read")
      ->check(CLI::IsMember({"auto", "all", "none"}));
  cmd->add_option("--log", a->log_path,
                  "Log file (default <cache-dir>/logs/mount<path>.log; "
                  "stderr with -f)");
  cmd->add_option("--retry-for", a->retry_for,
                  "Seconds to retry an unavailable store before a read fails "
                  "with EIO (default 30)");
  cmd->add_flag("--allow-other", a->allow_other,
                "Let other users read the mount (always on as root)");
  cmd->add_flag("--json", g.json, "Print the mount's details as JSON");
  cmd->callback([&g, a] { RunNoStore([&] { return DoMount(g, *a); }); });
}

}  // namespace sealvol::cli
