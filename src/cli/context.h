// What every command shares: global flags, opening the embedded store, the
// mapping from Status to exit code and message (the CLI's one error edge),
// and output helpers for people (--help, progress) and scripts (--json).
//
// Thread safety: used from the main thread only, except ProgressLine, which
// runs its own display thread.
#ifndef SEALVOL_CLI_CONTEXT_H_
#define SEALVOL_CLI_CONTEXT_H_

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "base/status.h"
#include "client/config.h"
#include "client/remote_repository.h"
#include "format/names.h"
#include "meta/sqlite_meta_store.h"
#include "registry/registry.h"
#include "store/local_blob_store.h"

namespace sealvol::cli {

// Exit codes (docs/cli.md).
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;     // I/O and other failures
inline constexpr int kExitUsage = 2;     // bad arguments or input
inline constexpr int kExitNotFound = 3;  // no such volume/tag/version/path
inline constexpr int kExitCorrupt = 4;   // verification failed
inline constexpr int kExitConflict = 5;  // tag CAS mismatch, missing blobs
inline constexpr int kExitPermission = 6;

int ExitCodeFor(const Status& s);

struct Globals {
  std::string store_dir;  // --store, else $SEALVOL_HOME, else the default
  std::string remote;     // --remote (client/config.h for the fallbacks)
  bool json = false;      // --json
  bool quiet = false;     // --quiet: no progress display
};

// The embedded store: blobs and metadata under one directory.
//   <root>/blobs/sha256/..   LocalBlobStore
//   <root>/meta.db           SqliteMetaStore
//   <root>/lock              flock: shared while publishing, exclusive for gc
class EmbeddedStore {
 public:
  enum class Lock { kNone, kShared, kExclusive };
  static Result<std::unique_ptr<EmbeddedStore>> Open(const std::string& root,
                                                     Lock lock);
  ~EmbeddedStore();

  const std::string& root() const { return root_; }
  LocalBlobStore& blobs() { return *blobs_; }
  Registry& registry() { return registry_; }

 private:
  EmbeddedStore(std::string root, std::unique_ptr<LocalBlobStore> blobs,
                std::unique_ptr<SqliteMetaStore> meta, int lock_fd);
  std::string root_;
  std::unique_ptr<LocalBlobStore> blobs_;
  std::unique_ptr<SqliteMetaStore> meta_;
  Registry registry_;
  int lock_fd_;
};

// $SEALVOL_HOME, else ~/.local/share/sealvol (or the --store override).
std::string StoreRoot(const Globals& g);

// This machine's cache (node chunk cache of mounts, publish file caches of
// remotes): $SEALVOL_CACHE_DIR, else $XDG_CACHE_HOME/sealvol, else
// ~/.cache/sealvol.
std::string DefaultCacheDir();

// Opens the store and runs `fn`; converts a failure into a message on stderr
// and an exit code (thrown as CLI::RuntimeError so CLI11 exits with it).
void Run(const Globals& g, EmbeddedStore::Lock lock,
         const std::function<Status(EmbeddedStore&)>& fn);
// Same, without a store.
void RunNoStore(const std::function<Status()>& fn);

// Where a command acts: the embedded store, or a remote registry
// (--remote, $SEALVOL_REMOTE, or the config file's default remote).
class Target {
 public:
  static Result<std::unique_ptr<Target>> Open(const Globals& g,
                                              EmbeddedStore::Lock lock);
  // A remote given explicitly (sealvol copy); `lock` applies when local.
  static Result<std::unique_ptr<Target>> OpenAt(
      const Globals& g, const std::optional<RemoteConfig>& remote,
      EmbeddedStore::Lock lock);

  Repository& repo() { return *repo_; }
  EmbeddedStore* embedded() { return embedded_.get(); }  // null if remote
  const std::optional<RemoteConfig>& remote() const { return remote_; }
  // The store directory or the registry URL, for messages.
  std::string where() const;
  // An HTTP client for the remote, with `retry_for` of its own (mount
  // daemons make one after fork). REQUIRES: remote().
  std::shared_ptr<HttpClient> NewClient(
      std::chrono::milliseconds retry_for) const;

 private:
  std::unique_ptr<EmbeddedStore> embedded_;
  std::optional<RemoteConfig> remote_;
  std::unique_ptr<RemoteRepository> remote_repo_;
  Repository* repo_ = nullptr;
};

// How long requests retry a server that does not answer:
// $SEALVOL_RETRY_FOR seconds, default 15.
std::chrono::milliseconds ClientRetryFor();

// Opens the target and runs `fn`, like Run.
void RunTarget(const Globals& g, EmbeddedStore::Lock lock,
               const std::function<Status(Target&)>& fn);

// Resolves a ref and loads its manifest.
struct Resolved {
  Ref ref;
  Digest digest;
  Manifest manifest;
};
Result<Resolved> ResolveRef(Repository& repo, std::string_view text);

void PrintJson(const nlohmann::json& j);
std::string HumanBytes(uint64_t n);
std::string FormatTime(int64_t unix_seconds);  // UTC, ISO 8601
std::string CurrentUser();
std::string HostName();

// A one-line progress display on stderr, redrawn every 200 ms while a long
// operation runs; shown only when stderr is a terminal and not --quiet/--json.
class ProgressLine {
 public:
  ProgressLine(const Globals& g, std::function<std::string()> render);
  ~ProgressLine();  // clears the line

 private:
  std::function<std::string()> render_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// "1.2 GiB / 2.0 GiB  60%  850 MB/s  ETA 1s" for done/total since start.
std::string RateLine(uint64_t done, uint64_t total, double seconds);

}  // namespace sealvol::cli

#endif  // SEALVOL_CLI_CONTEXT_H_
