#include "mount/mount_service.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "mount/fuse_server.h"

namespace sealvol {
namespace {

const char* PrefetchName(Prefetch p) {
  switch (p) {
    case Prefetch::kNone:
      return "none";
    case Prefetch::kAll:
      return "all";
    case Prefetch::kAuto:
      break;
  }
  return "auto";
}

}  // namespace

Status ServeMount(BlobStore* store, Manifest manifest, const MountOptions& o,
                  const std::function<void(const Status&)>& ready,
                  const std::function<void(const std::string&)>& log) {
  // Block the stop signals before any thread starts, so every thread
  // inherits the mask and only the waiter below receives them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  for (int s : {SIGTERM, SIGINT, SIGHUP, SIGUSR1}) sigaddset(&stop_signals, s);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  auto fail = [&](const Status& s) {
    ready(s);
    return s;
  };
  MountStats stats;
  uint64_t total_bytes = manifest.TotalBytes();
  // --cache-size 0: no node cache (the embedded store is on this node
  // already, so a second copy may not be worth its disk space).
  std::unique_ptr<NodeCache> disk;
  if (o.cache_size > 0) {
    auto opened = NodeCache::Open(o.cache_dir, o.cache_size, &stats);
    if (!opened) return fail(opened.error());
    disk = std::move(*opened);
  }
  ChunkCache memory(o.memory_cache);
  ChunkSource source(store, &memory, disk.get(), &stats, o.fetch);
  auto tree = VolumeTree::Build(std::move(manifest));
  if (!tree) return fail(tree.error());
  FsOptions fs_options;
  fs_options.prefetch = o.prefetch;
  fs_options.mtime = o.created;
  fs_options.uid = getuid();
  fs_options.gid = getgid();
  VolumeFs fs(std::move(*tree), &source, fs_options);

  auto started = std::chrono::steady_clock::now();
  MountConfig config;
  config.mountpoint = o.mountpoint;
  config.fsname = "sealvol:" + o.ref;
  config.allow_other = o.allow_other;
  config.log = log;
  config.stats_json = [&]() -> std::string {
    nlohmann::json j = stats.ToJson();
    j["mountpoint"] = o.mountpoint;
    j["ref"] = o.ref;
    j["digest"] = o.digest.ToString();
    j["pid"] = getpid();
    j["log"] = o.log_path;
    j["uptime_seconds"] = std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - started)
                              .count();
    j["memory_cache"] = {{"bytes", memory.bytes()},
                         {"capacity", memory.capacity()}};
    j["node_cache"] = {{"dir", disk ? o.cache_dir : ""},
                       {"bytes", disk ? disk->usage() : 0},
                       {"capacity", o.cache_size}};
    j["prefetch"] = {{"mode", PrefetchName(o.prefetch)},
                     {"hydrated_bytes", fs.hydrated_bytes()},
                     {"total_bytes", total_bytes},
                     {"done", fs.hydration_done()}};
    return j.dump();
  };
  auto server = FuseServer::Mount(&fs, &stats, config);
  if (!server) return fail(server.error());

  std::thread waiter([&] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    if (sig == SIGUSR1) return;  // the loop ended on its own
    log(std::string("received ") + strsignal(sig) + "; unmounting");
    (*server)->Unmount();
  });
  log("mounted " + o.ref + " at " + o.mountpoint);
  ready(Status::Ok());
  fs.StartHydration();
  Status served = (*server)->Serve();
  pthread_kill(waiter.native_handle(), SIGUSR1);
  waiter.join();
  log("unmounted " + o.mountpoint + ": served " +
      std::to_string(stats.bytes_read.load()) + " bytes, fetched " +
      std::to_string(stats.bytes_fetched.load()) + " bytes");
  return served;
}

}  // namespace sealvol
