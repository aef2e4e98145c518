// What the deployment commands (lock, up, down, status, rollback) share:
// loading the spec, checking pins against the registry, counting what a
// new version adds, and starting a mount daemon for a digest.
//
// Thread safety: main thread only.
#ifndef SEALVOL_CLI_DEPLOY_COMMON_H_
#define SEALVOL_CLI_DEPLOY_COMMON_H_

#include <map>
#include <optional>
#include <set>
#include <string>

#include "cli/context.h"
#include "deploy/node.h"
#include "deploy/spec.h"

namespace sealvol::cli {

inline constexpr const char* kDefaultSpec = "sealvol.yaml";

// Flags every deployment command takes.
struct DeployArgs {
  std::string spec = kDefaultSpec;
  std::string state_dir;  // empty: DefaultStateDir()
  std::string cache_dir;  // empty: DefaultCacheDir()
  // Both absolute: symlinks point into the state dir, and mount daemons
  // outlive the directory they were started from.
  std::string StateDir() const;
  std::string CacheDir() const;
};
void AddSpecArg(CLI::App* cmd, DeployArgs* a);
void AddNodeArgs(CLI::App* cmd, DeployArgs* a);

// "acme/m at /models/m".
std::string Label(const SpecVolume& v);

// NotFound naming the spec line when `digest` is not a version of `v`'s
// volume.
Status CheckVersion(Repository& repo, const Spec& spec, const SpecVolume& v,
                    const Digest& digest);

// Every distinct chunk (digest → length) of the files in `m`, skipping
// files whose sha256 is in `skip_files`.
Result<std::map<Digest, uint64_t>> VersionChunks(
    BlobStore& blobs, const Manifest& m, const std::set<Digest>& skip_files);

// The bytes of the chunks `to` names that `from` does not (all of
// `to`'s when `from` is empty): what a node fetches to switch.
Result<uint64_t> AddedBytes(Repository& repo, const std::string& volume,
                            const std::optional<Digest>& from,
                            const Digest& to);

// Replaces the spec file with `text` (atomically, keeping its mode).
Status WriteSpec(const std::string& path, const std::string& text);

// Mounts `volume@digest` at `dir` by running this binary's `mount` as a
// daemon, with the same store or remote; OK once the mount is live.
Status MountDaemon(const Globals& g, const std::string& volume,
                   const Digest& digest, const std::string& dir,
                   const std::string& cache_dir);

}  // namespace sealvol::cli

#endif  // SEALVOL_CLI_DEPLOY_COMMON_H_
