#include "deploy/node.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>

#include "base/file.h"

namespace sealvol {

std::string DefaultStateDir() {
  if (const char* s = getenv("SEALVOL_STATE_DIR"); s && *s) return s;
  if (const char* x = getenv("XDG_STATE_HOME"); x && *x) {
    return std::string(x) + "/sealvol/deploy";
  }
  const char* home = getenv("HOME");
  return std::string(home && *home ? home : "/tmp") +
         "/.local/state/sealvol/deploy";
}

std::string DeploymentDir(const std::string& state_dir,
                          const std::string& deployment) {
  std::string name = deployment;
  for (char& c : name) {
    if (c == '/') c = '_';
  }
  return state_dir + "/" + name;
}

std::string MountDirFor(const std::string& deployment_dir,
                        const Digest& digest) {
  return deployment_dir + "/" + digest.Hex();
}

Status SwapSymlink(const std::string& link, const std::string& target) {
  struct stat st;
  if (lstat(link.c_str(), &st) == 0 && !S_ISLNK(st.st_mode)) {
    return FailedPrecondition(
        link +
        " exists and is not a symlink; sealvol mounts a deployment's "
        "paths as symlinks and will not replace it (move it away)");
  }
  size_t slash = link.rfind('/');
  if (slash != std::string::npos && slash > 0) {
    SV_RETURN_IF_ERROR(MakeDirs(link.substr(0, slash)));
  }
  std::string tmp = TempPathFor(link);
  unlink(tmp.c_str());
  if (symlink(target.c_str(), tmp.c_str()) != 0) {
    return ErrnoStatus(errno, "symlink " + tmp);
  }
  if (rename(tmp.c_str(), link.c_str()) != 0) {
    int err = errno;
    unlink(tmp.c_str());
    return ErrnoStatus(err, "rename " + tmp + " to " + link);
  }
  return SyncFilesystem(link.substr(0, slash == 0 ? 1 : slash));
}

std::optional<Digest> LinkedDigest(const std::string& link,
                                   const std::string& deployment_dir) {
  char buf[PATH_MAX];
  ssize_t n = readlink(link.c_str(), buf, sizeof buf - 1);
  if (n <= 0) return std::nullopt;
  std::string target(buf, static_cast<size_t>(n));
  std::string prefix = deployment_dir + "/";
  if (target.rfind(prefix, 0) != 0) return std::nullopt;
  auto d = Digest::Parse("sha256:" + target.substr(prefix.size()));
  if (!d) return std::nullopt;
  return *d;
}

Result<bool> RemoveLink(const std::string& link,
                        const std::string& deployment_dir) {
  if (!LinkedDigest(link, deployment_dir)) return false;
  if (unlink(link.c_str()) != 0) return ErrnoStatus(errno, "remove " + link);
  return true;
}

std::vector<Digest> MountDirs(const std::string& deployment_dir) {
  std::vector<Digest> out;
  DIR* d = opendir(deployment_dir.c_str());
  if (d == nullptr) return out;
  while (dirent* e = readdir(d)) {
    auto digest = Digest::Parse(std::string("sha256:") + e->d_name);
    if (digest) out.push_back(*digest);
  }
  closedir(d);
  return out;
}

Result<DeploymentLock> DeploymentLock::Acquire(
    const std::string& deployment_dir) {
  SV_RETURN_IF_ERROR(MakeDirs(deployment_dir));
  std::string path = deployment_dir + "/lock";
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus(errno, path);
  if (flock(fd, LOCK_EX) != 0) {
    int err = errno;
    close(fd);
    return ErrnoStatus(err, "lock " + path);
  }
  return DeploymentLock(fd);
}

DeploymentLock::~DeploymentLock() {
  if (fd_ >= 0) close(fd_);
}

}  // namespace sealvol
