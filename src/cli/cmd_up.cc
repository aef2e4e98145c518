// sealvol up and sealvol down: make this node mount what a deployment spec
// pins (deploy/node.h for the layout), and take it away again.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <iostream>
#include <set>

#include "cli/commands.h"
#include "cli/deploy_common.h"
#include "mount/mount_table.h"

namespace sealvol::cli {
namespace {

using json = nlohmann::json;

struct Step {
  size_t index;
  Digest digest;
  std::optional<Digest> before;   // what the path linked to
  std::vector<std::string> warm;  // files the new version adds (--warm)
  uint64_t warmed = 0;
};

// True when `dir` holds a live mount of `digest`.
bool Serving(const std::string& dir, const Digest& digest) {
  auto stats = ReadMountStats(dir);
  return stats.has_value() && stats->value("digest", "") == digest.ToString();
}

// Reads `path` to the end (through the mount: it fills the node cache).
Result<uint64_t> ReadThrough(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, "warm " + path);
  std::string buf(1 << 20, '\0');
  uint64_t total = 0;
  for (;;) {
    ssize_t n = read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      close(fd);
      return ErrnoStatus(err, "warm " + path);
    }
    if (n == 0) break;
    total += static_cast<uint64_t>(n);
  }
  close(fd);
  return total;
}

// Plans `up`: every volume's digest (checked against the registry) and,
// with `warm`, the files its new version adds.
Result<std::vector<Step>> Plan(const Globals& g, const Spec& spec,
                               const std::string& dep_dir, bool resolve,
                               bool warm) {
  std::vector<Step> steps;
  std::string unpinned;
  for (size_t i = 0; i < spec.volumes.size(); ++i) {
    const SpecVolume& v = spec.volumes[i];
    if (!v.Pinned() && !resolve) {
      unpinned += "\n  " + spec.file + ":" + std::to_string(v.line) + ": " +
                  v.ref.ToString() + " at " + v.path;
    }
  }
  for (const auto& v : spec.volumes) {
    struct stat st;
    if (lstat(v.path.c_str(), &st) == 0 && !S_ISLNK(st.st_mode)) {
      return FailedPrecondition(
          spec.file + ":" + std::to_string(v.line) + ": " + v.path +
          " exists and is not a symlink; sealvol mounts a deployment's paths "
          "as symlinks and will not replace it (move it away)");
    }
  }
  if (!unpinned.empty()) {
    return InvalidArgument(
        "not pinned (run `sealvol lock`, or `sealvol up --resolve` to mount "
        "what the tags point at now):" +
        unpinned);
  }
  RunTarget(g, EmbeddedStore::Lock::kNone, [&](Target& st) -> Status {
    Repository& repo = st.repo();
    for (size_t i = 0; i < spec.volumes.size(); ++i) {
      const SpecVolume& v = spec.volumes[i];
      Step s{i, {}, LinkedDigest(v.path, dep_dir), {}, 0};
      if (auto pinned = v.Pinned()) {
        s.digest = *pinned;
      } else {
        SV_ASSIGN_OR_RETURN(s.digest, repo.Resolve(v.ref));
      }
      SV_RETURN_IF_ERROR(CheckVersion(repo, spec, v, s.digest));
      if (warm && s.before != s.digest) {
        SV_ASSIGN_OR_RETURN(Manifest next,
                            repo.LoadManifest(v.ref.volume, s.digest));
        std::set<Digest> had;
        if (s.before) {
          auto prev = repo.LoadManifest(v.ref.volume, *s.before);
          if (prev) {
            for (const auto& e : prev->entries) had.insert(e.sha256);
          }
        }
        for (const auto& e : next.entries) {
          if (e.type == EntryType::kFile && e.size > 0 &&
              !had.count(e.sha256)) {
            s.warm.push_back(e.path);
          }
        }
      }
      steps.push_back(std::move(s));
    }
    return Status::Ok();
  });
  return steps;
}

// Detaches and removes every mount dir of the deployment not in `keep`.
// Lazily: a process still reading the old version keeps it until it closes.
std::vector<std::string> Retire(const std::string& dep_dir,
                                const std::set<Digest>& keep) {
  std::vector<std::string> retired;
  for (const Digest& d : MountDirs(dep_dir)) {
    if (keep.count(d)) continue;
    std::string dir = MountDirFor(dep_dir, d);
    if (ReadMountStats(dir).has_value() || IsStaleMount(dir)) {
      Status s = UnmountPath(dir, /*lazy=*/true);
      if (!s.ok()) {
        std::cerr << "sealvol: warning: " << s.ToString() << "\n";
        continue;
      }
    }
    rmdir(dir.c_str());
    retired.push_back(d.ToString());
  }
  return retired;
}

Status DoUp(const Globals& g, const DeployArgs& a, bool resolve, bool warm) {
  SV_ASSIGN_OR_RETURN(Spec spec, LoadSpec(a.spec));
  std::string dep_dir = DeploymentDir(a.StateDir(), spec.deployment);
  SV_ASSIGN_OR_RETURN(DeploymentLock lock, DeploymentLock::Acquire(dep_dir));
  SV_ASSIGN_OR_RETURN(auto steps, Plan(g, spec, dep_dir, resolve, warm));
  // Mount every digest first; no path changes until all are live.
  std::set<Digest> needed;
  for (auto& s : steps) {
    const SpecVolume& v = spec.volumes[s.index];
    std::string dir = MountDirFor(dep_dir, s.digest);
    if (!needed.insert(s.digest).second || Serving(dir, s.digest)) continue;
    SV_RETURN_IF_ERROR(MakeDirs(dir));
    SV_RETURN_IF_ERROR(
        MountDaemon(g, v.ref.volume, s.digest, dir, a.CacheDir()));
  }
  for (auto& s : steps) {
    for (const auto& file : s.warm) {
      SV_ASSIGN_OR_RETURN(
          uint64_t n, ReadThrough(MountDirFor(dep_dir, s.digest) + "/" + file));
      s.warmed += n;
    }
  }
  for (auto& s : steps) {
    SV_RETURN_IF_ERROR(SwapSymlink(spec.volumes[s.index].path,
                                   MountDirFor(dep_dir, s.digest)));
  }
  std::vector<std::string> retired = Retire(dep_dir, needed);
  if (g.json) {
    json list = json::array();
    for (const auto& s : steps) {
      const SpecVolume& v = spec.volumes[s.index];
      list.push_back(
          {{"volume", v.ref.volume},
           {"path", v.path},
           {"digest", s.digest.ToString()},
           {"before", s.before ? json(s.before->ToString()) : json()},
           {"mount", MountDirFor(dep_dir, s.digest)},
           {"warmed_bytes", s.warmed}});
    }
    PrintJson({{"deployment", spec.deployment},
               {"volumes", list},
               {"retired", retired}});
    return Status::Ok();
  }
  for (const auto& s : steps) {
    const SpecVolume& v = spec.volumes[s.index];
    std::cout << v.path << " -> " << v.ref.volume << "@" << s.digest.Short();
    if (!s.before) {
      std::cout << "  (new)";
    } else if (*s.before != s.digest) {
      std::cout << "  (was " << s.before->Short() << ")";
    }
    if (warm && s.before != s.digest) {
      std::cout << "  warmed " << HumanBytes(s.warmed);
    }
    std::cout << "\n";
  }
  if (!g.quiet && !retired.empty()) {
    std::cerr << "detached " << retired.size()
              << " old mount(s); each goes away when its last open file "
                 "closes\n";
  }
  return Status::Ok();
}

Status DoDown(const Globals& g, const DeployArgs& a) {
  SV_ASSIGN_OR_RETURN(Spec spec, LoadSpec(a.spec));
  std::string dep_dir = DeploymentDir(a.StateDir(), spec.deployment);
  SV_ASSIGN_OR_RETURN(DeploymentLock lock, DeploymentLock::Acquire(dep_dir));
  json paths = json::array();
  for (const auto& v : spec.volumes) {
    SV_ASSIGN_OR_RETURN(bool removed, RemoveLink(v.path, dep_dir));
    if (removed) paths.push_back(v.path);
  }
  std::vector<std::string> retired = Retire(dep_dir, {});
  if (g.json) {
    PrintJson({{"deployment", spec.deployment},
               {"removed_paths", paths},
               {"retired", retired}});
  } else if (!g.quiet) {
    std::cerr << spec.deployment << " is down: removed " << paths.size()
              << " path(s), detached " << retired.size()
              << " mount(s) (open files keep working until closed)\n";
  }
  return Status::Ok();
}

}  // namespace

void RegisterUp(CLI::App& app, Globals& g) {
  auto a = std::make_shared<DeployArgs>();
  auto resolve = std::make_shared<bool>(false);
  auto warm = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand(
      "up",
      "Mount every volume of a deployment spec at its pinned digest. Each "
      "digest gets its own mount and each path is a symlink swapped in one "
      "rename, so a path never shows a missing or half-made version; old "
      "mounts are detached and go away when their last open file closes.");
  AddSpecArg(cmd, a.get());
  AddNodeArgs(cmd, a.get());
  cmd->add_flag("--resolve", *resolve,
                "Mount unpinned volumes at what their tag points at now "
                "(without pinning them)");
  cmd->add_flag("--warm", *warm,
                "Fetch the files a new version adds into the node cache "
                "before switching to it");
  cmd->add_flag("--json", g.json, "Print what is mounted where as JSON");
  cmd->callback([&g, a, resolve, warm] {
    RunNoStore([&] { return DoUp(g, *a, *resolve, *warm); });
  });
}

void RegisterDown(CLI::App& app, Globals& g) {
  auto a = std::make_shared<DeployArgs>();
  auto* cmd = app.add_subcommand(
      "down",
      "Remove a deployment's paths and detach its mounts on this node (open "
      "files keep working until closed). Pins stay in the registry.");
  AddSpecArg(cmd, a.get());
  AddNodeArgs(cmd, a.get());
  cmd->add_flag("--json", g.json, "Print what was removed as JSON");
  cmd->callback([&g, a] { RunNoStore([&] { return DoDown(g, *a); }); });
}

}  // namespace sealvol::cli
