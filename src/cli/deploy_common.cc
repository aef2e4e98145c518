#include "cli/deploy_common.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <iostream>
#include <map>
#include <set>

#include "base/file.h"
#include "store/blob_reader.h"

namespace sealvol::cli {

namespace {

std::string Absolute(const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  char cwd[PATH_MAX];
  if (getcwd(cwd, sizeof cwd) == nullptr) return path;
  return std::string(cwd) + "/" + path;
}

}  // namespace

std::string DeployArgs::StateDir() const {
  return Absolute(state_dir.empty() ? DefaultStateDir() : state_dir);
}

std::string DeployArgs::CacheDir() const {
  return Absolute(cache_dir.empty() ? DefaultCacheDir() : cache_dir);
}

void AddSpecArg(CLI::App* cmd, DeployArgs* a) {
  cmd->add_option("SPEC", a->spec,
                  "Deployment spec (default ./sealvol.yaml; docs/deploy.md)");
}

void AddNodeArgs(CLI::App* cmd, DeployArgs* a) {
  cmd->add_option("--state-dir", a->state_dir,
                  "Where this node mounts each pinned digest (default "
                  "$SEALVOL_STATE_DIR, else ~/.local/state/sealvol/deploy)");
  cmd->add_option("--cache-dir", a->cache_dir,
                  "Node cache shared by the mounts (default "
                  "$SEALVOL_CACHE_DIR, else ~/.cache/sealvol)");
}

std::string Label(const SpecVolume& v) {
  return v.ref.volume + " at " + v.path;
}

Status CheckVersion(Repository& repo, const Spec& spec, const SpecVolume& v,
                    const Digest& digest) {
  auto rec = repo.GetVersion(v.ref.volume, digest);
  if (rec.has_value()) return Status::Ok();
  if (rec.error().code() != StatusCode::kNotFound) return rec.error();
  return NotFound(spec.file + ":" + std::to_string(v.line) + ": " +
                  digest.ToString() + " is not a version of " + v.ref.volume);
}

Result<std::map<Digest, uint64_t>> VersionChunks(
    BlobStore& blobs, const Manifest& m, const std::set<Digest>& skip_files) {
  std::map<Digest, uint64_t> out;
  for (const auto& e : m.entries) {
    if (e.type != EntryType::kFile || e.size == 0) continue;
    if (skip_files.count(e.sha256)) continue;
    SV_ASSIGN_OR_RETURN(auto chunks, FileChunks(blobs, e));
    for (const auto& c : chunks) out[c.digest] = c.length;
  }
  return out;
}

Result<uint64_t> AddedBytes(Repository& repo, const std::string& volume,
                            const std::optional<Digest>& from,
                            const Digest& to) {
  SV_ASSIGN_OR_RETURN(BlobStore * blobs, repo.Blobs(volume));
  SV_ASSIGN_OR_RETURN(Manifest next, repo.LoadManifest(volume, to));
  std::map<Digest, uint64_t> before;
  std::set<Digest> same_files;
  if (from && *from != to) {
    SV_ASSIGN_OR_RETURN(Manifest prev, repo.LoadManifest(volume, *from));
    SV_ASSIGN_OR_RETURN(before, VersionChunks(*blobs, prev, {}));
    for (const auto& e : prev.entries) same_files.insert(e.sha256);
  } else if (from) {
    return uint64_t{0};
  }
  // Files whose whole content the old version has add nothing.
  SV_ASSIGN_OR_RETURN(auto after, VersionChunks(*blobs, next, same_files));
  uint64_t added = 0;
  for (const auto& [d, len] : after) {
    if (!before.count(d)) added += len;
  }
  return added;
}

Status WriteSpec(const std::string& path, const std::string& text) {
  struct stat st;
  bool had = stat(path.c_str(), &st) == 0;
  SV_RETURN_IF_ERROR(WriteFileAtomically(path, text));
  if (had) (void)chmod(path.c_str(), st.st_mode & 07777);
  return Status::Ok();
}

Status MountDaemon(const Globals& g, const std::string& volume,
                   const Digest& digest, const std::string& dir,
                   const std::string& cache_dir) {
  std::vector<std::string> args = {"sealvol"};
  if (!g.store_dir.empty()) args.insert(args.end(), {"--store", g.store_dir});
  if (!g.remote.empty()) args.insert(args.end(), {"--remote", g.remote});
  args.insert(args.end(), {"--quiet", "mount", "--cache-dir", cache_dir,
                           volume + "@" + digest.ToString(), dir});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::cout.flush();
  std::cerr.flush();
  pid_t pid = fork();
  if (pid < 0) return ErrnoStatus(errno, "fork");
  if (pid == 0) {
    // The mount prints its digest on stdout; ours is for our own report.
    int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) dup2(devnull, 1);
    execv("/proc/self/exe", argv.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return ErrnoStatus(errno, "wait for mount");
  }
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  if (code == 0) return Status::Ok();
  std::string msg = "mounting " + volume + "@" + digest.Short() + " at " + dir +
                    " failed (see above)";
  switch (code) {
    case kExitUsage:
      return InvalidArgument(msg);
    case kExitNotFound:
      return NotFound(msg);
    case kExitCorrupt:
      return Corruption(msg);
    case kExitConflict:
      return FailedPrecondition(msg);
    case kExitPermission:
      return PermissionDenied(msg);
    default:
      return IOError(msg);
  }
}

}  // namespace sealvol::cli
