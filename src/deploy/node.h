// A node's side of a deployment (docs/deploy.md): each pinned digest is
// mounted at its own directory under the state dir, and each spec path is a
// symlink to one of them. Switching versions is one rename(2) of a new
// symlink over the old, so a path is never missing or half-populated:
// opens before the rename see the old version (and keep it while open),
// opens after it see the new one.
//
//   <state>/<deployment, '/' as '_'>/<digest hex>   a mount per digest
//
// Thread safety: stateless free functions; concurrent `up`s of one
// deployment are serialized by the caller (LockDeployment).
#ifndef SEALVOL_DEPLOY_NODE_H_
#define SEALVOL_DEPLOY_NODE_H_

#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "hash/digest.h"

namespace sealvol {

// $SEALVOL_STATE_DIR, else $XDG_STATE_HOME/sealvol/deploy, else
// ~/.local/state/sealvol/deploy.
std::string DefaultStateDir();

std::string DeploymentDir(const std::string& state_dir,
                          const std::string& deployment);
std::string MountDirFor(const std::string& deployment_dir,
                        const Digest& digest);

// Points `link` at `target` atomically (a new symlink beside it renamed
// over it), creating `link`'s parent directories. FailedPrecondition when
// `link` exists and is not a symlink: sealvol never replaces user data.
Status SwapSymlink(const std::string& link, const std::string& target);

// The digest whose mount dir (under `deployment_dir`) `link` points at;
// nullopt when it is not such a symlink.
std::optional<Digest> LinkedDigest(const std::string& link,
                                   const std::string& deployment_dir);

// Removes `link` when it is a symlink into `deployment_dir`; true if it was.
Result<bool> RemoveLink(const std::string& link,
                        const std::string& deployment_dir);

// The digests with a mount dir under `deployment_dir`.
std::vector<Digest> MountDirs(const std::string& deployment_dir);

// Holds an exclusive flock on `<deployment_dir>/lock` while alive.
class DeploymentLock {
 public:
  static Result<DeploymentLock> Acquire(const std::string& deployment_dir);
  DeploymentLock(DeploymentLock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  DeploymentLock& operator=(DeploymentLock&&) = delete;
  ~DeploymentLock();

 private:
  explicit DeploymentLock(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace sealvol

#endif  // SEALVOL_DEPLOY_NODE_H_
