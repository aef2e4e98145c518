#define FUSE_USE_VERSION 312
#include "mount/fuse_server.h"

#include <fuse_lowlevel.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <vector>

#include "mount/mount_table.h"

namespace sealvol {
namespace {

// Versions are immutable: cache for as long as the mount lives.
constexpr double kForever = 1e9;

struct Ctx {
  VolumeFs* fs;
  MountStats* stats;
  MountConfig* config;
  std::once_flag readahead_once;
};

// The kernel sets the mount's readahead when it processes the INIT reply,
// so it is raised on the first request after that.
Ctx& C(fuse_req_t req) {
  Ctx& c = *static_cast<Ctx*>(fuse_req_userdata(req));
  std::call_once(c.readahead_once,
                 [&] { RaiseReadahead(c.config->mountpoint, 4096); });
  return c;
}

void ReplyEntry(fuse_req_t req, const Result<struct stat>& st) {
  fuse_entry_param e = {};
  e.attr_timeout = kForever;
  e.entry_timeout = kForever;
  if (st) {
    e.ino = st->st_ino;
    e.generation = 1;
    e.attr = *st;
  }
  // ino 0: a negative entry, cached like the rest.
  fuse_reply_entry(req, &e);
}

void OpInit(void* userdata, fuse_conn_info* conn) {
  (void)userdata;
  // More asynchronous readahead requests in flight than the default 12.
  conn->max_background = 64;
  conn->congestion_threshold = 48;
  if (conn->capable & FUSE_CAP_CACHE_SYMLINKS) {
    conn->want |= FUSE_CAP_CACHE_SYMLINKS;
  }
  conn->want &= ~FUSE_CAP_AUTO_INVAL_DATA;  // the data never changes
}

void OpLookup(fuse_req_t req, fuse_ino_t parent, const char* name) {
  ReplyEntry(req, C(req).fs->Lookup(parent, name));
}

void OpGetAttr(fuse_req_t req, fuse_ino_t ino, fuse_file_info*) {
  auto st = C(req).fs->GetAttr(ino);
  if (!st) {
    fuse_reply_err(req, ENOENT);
    return;
  }
  fuse_reply_attr(req, &*st, kForever);
}

void OpReadLink(fuse_req_t req, fuse_ino_t ino) {
  auto target = C(req).fs->ReadLink(ino);
  if (!target) {
    fuse_reply_err(req, EINVAL);
    return;
  }
  fuse_reply_readlink(req, target->c_str());
}

void OpOpenDir(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) {
  const TreeNode* n = C(req).fs->tree().Get(ino);
  if (n == nullptr || n->type != EntryType::kDir) {
    fuse_reply_err(req, n == nullptr ? ENOENT : ENOTDIR);
    return;
  }
  fi->cache_readdir = 1;
  fi->keep_cache = 1;
  fuse_reply_open(req, fi);
}

void OpReadDir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
               fuse_file_info*) {
  const VolumeTree& tree = C(req).fs->tree();
  const TreeNode* n = tree.Get(ino);
  if (n == nullptr) {
    fuse_reply_err(req, ENOENT);
    return;
  }
  std::vector<char> buf(size);
  size_t used = 0;
  size_t total = n->children.size() + 2;
  for (auto i = static_cast<size_t>(off); i < total; ++i) {
    struct stat st = {};
    const char* name;
    if (i < 2) {
      name = i == 0 ? "." : "..";
      st.st_ino = i == 0 ? n->ino : n->parent;
      st.st_mode = S_IFDIR;
    } else {
      const TreeNode* child = tree.Get(n->children[i - 2].second);
      name = child->name.c_str();
      st.st_ino = child->ino;
      st.st_mode = child->mode();
    }
    size_t need = fuse_add_direntry(req, buf.data() + used, size - used, name,
                                    &st, static_cast<off_t>(i + 1));
    if (need > size - used) break;
    used += need;
  }
  fuse_reply_buf(req, buf.data(), used);
}

void OpOpen(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) {
  if ((fi->flags & O_ACCMODE) != O_RDONLY) {
    fuse_reply_err(req, EROFS);
    return;
  }
  Ctx& c = C(req);
  auto file = c.fs->Open(ino);
  if (!file) {
    // Only an unknown inode is ENOENT; a chunk index the store cannot give
    // is an I/O error on this file.
    bool no_inode = c.fs->tree().Get(ino) == nullptr;
    c.config->log("open of inode " + std::to_string(ino) +
                  " failed: " + file.error().ToString());
    fuse_reply_err(req, no_inode ? ENOENT : EIO);
    return;
  }
  fi->fh = reinterpret_cast<uint64_t>(file->release());
  fi->keep_cache = 1;  // pages stay valid: the bytes never change
  fi->noflush = 1;
  if (fuse_reply_open(req, fi) != 0) {
    delete reinterpret_cast<OpenFile*>(fi->fh);
  }
}

void OpRead(fuse_req_t req, fuse_ino_t, size_t size, off_t off,
            fuse_file_info* fi) {
  Ctx& c = C(req);
  auto* file = reinterpret_cast<OpenFile*>(fi->fh);
  c.stats->reads.fetch_add(1, std::memory_order_relaxed);
  auto reply = c.fs->Read(*file, static_cast<uint64_t>(off), size);
  if (!reply) {
    c.stats->read_errors.fetch_add(1);
    c.config->log("EIO: " + reply.error().ToString());
    fuse_reply_err(req, EIO);
    return;
  }
  c.stats->bytes_read.fetch_add(reply->bytes, std::memory_order_relaxed);
  if (reply->iov.empty()) {
    fuse_reply_buf(req, nullptr, 0);  // at or past the end of the file
    return;
  }
  fuse_reply_iov(req, reply->iov.data(), static_cast<int>(reply->iov.size()));
}

void OpRelease(fuse_req_t req, fuse_ino_t, fuse_file_info* fi) {
  delete reinterpret_cast<OpenFile*>(fi->fh);
  fuse_reply_err(req, 0);
}

void OpStatFs(fuse_req_t req, fuse_ino_t) {
  const VolumeTree& tree = C(req).fs->tree();
  struct statvfs sv = {};
  sv.f_bsize = 4096;
  sv.f_frsize = 4096;
  sv.f_blocks = (tree.manifest().TotalBytes() + 4095) / 4096;
  sv.f_files = tree.node_count();
  sv.f_namemax = 255;
  sv.f_flag = ST_RDONLY;
  fuse_reply_statfs(req, &sv);
}

void OpGetXattr(fuse_req_t req, fuse_ino_t ino, const char* name, size_t size) {
  Ctx& c = C(req);
  if (ino != kRootIno || std::strcmp(name, kStatsXattr) != 0 ||
      !c.config->stats_json) {
    fuse_reply_err(req, ENODATA);
    return;
  }
  std::string value = c.config->stats_json();
  if (size == 0) {
    fuse_reply_xattr(req, value.size());
  } else if (size < value.size()) {
    fuse_reply_err(req, ERANGE);
  } else {
    fuse_reply_buf(req, value.data(), value.size());
  }
}

void OpListXattr(fuse_req_t req, fuse_ino_t, size_t size) {
  if (size == 0) {
    fuse_reply_xattr(req, 0);
  } else {
    fuse_reply_buf(req, nullptr, 0);
  }
}

void OpSetAttr(fuse_req_t req, fuse_ino_t, struct stat*, int, fuse_file_info*) {
  fuse_reply_err(req, EROFS);
}

const fuse_lowlevel_ops kOps = [] {
  fuse_lowlevel_ops ops = {};
  ops.init = OpInit;
  ops.lookup = OpLookup;
  ops.getattr = OpGetAttr;
  ops.setattr = OpSetAttr;
  ops.readlink = OpReadLink;
  ops.opendir = OpOpenDir;
  ops.readdir = OpReadDir;
  ops.open = OpOpen;
  ops.read = OpRead;
  ops.release = OpRelease;
  ops.statfs = OpStatFs;
  ops.getxattr = OpGetXattr;
  ops.listxattr = OpListXattr;
  return ops;
}();

}  // namespace

struct FuseServer::Impl {
  MountConfig config;
  Ctx ctx;
  fuse_session* se = nullptr;
};

Result<std::unique_ptr<FuseServer>> FuseServer::Mount(VolumeFs* fs,
                                                      MountStats* stats,
                                                      MountConfig config) {
  std::unique_ptr<FuseServer> server(new FuseServer());
  server->impl_ = std::make_unique<Impl>();
  Impl& impl = *server->impl_;
  impl.config = std::move(config);
  if (!impl.config.log) impl.config.log = [](const std::string&) {};
  impl.ctx.fs = fs;
  impl.ctx.stats = stats;
  impl.ctx.config = &impl.config;

  std::string opts =
      "ro,default_permissions,subtype=sealvol,fsname=" + impl.config.fsname;
  if (impl.config.allow_other) opts += ",allow_other";
  std::vector<std::string> argv_s = {"sealvol", "-o", opts};
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  fuse_args args = FUSE_ARGS_INIT(static_cast<int>(argv.size()), argv.data());
  impl.se = fuse_session_new(&args, &kOps, sizeof(kOps), &impl.ctx);
  fuse_opt_free_args(&args);  // libfuse may have added to them
  if (impl.se == nullptr) {
    return InvalidArgument("cannot start a FUSE session (options: " + opts +
                           ")");
  }
  if (fuse_session_mount(impl.se, impl.config.mountpoint.c_str()) != 0) {
    fuse_session_destroy(impl.se);
    impl.se = nullptr;
    std::string why = " (is /dev/fuse available, and fuse3 installed?)";
    if (access("/dev/fuse", F_OK) != 0) {
      why =
          ": this machine has no /dev/fuse (load the fuse module, or give "
          "the container the device)";
    } else if (geteuid() != 0 && access("/dev/fuse", R_OK | W_OK) != 0) {
      why =
          ": /dev/fuse is not readable and writable by this user (it is "
          "usually mode 0666; libfuse then mounts through fusermount3)";
    }
    return IOError("cannot mount at " + impl.config.mountpoint + why);
  }
  return server;
}

FuseServer::~FuseServer() {
  if (impl_ && impl_->se != nullptr) {
    fuse_session_unmount(impl_->se);
    fuse_session_destroy(impl_->se);
  }
}

Status FuseServer::Serve() {
  fuse_loop_config* cfg = fuse_loop_cfg_create();
  fuse_loop_cfg_set_max_threads(cfg, impl_->config.max_threads);
  fuse_loop_cfg_set_idle_threads(cfg, impl_->config.max_threads);
  int rc = fuse_session_loop_mt(impl_->se, cfg);
  fuse_loop_cfg_destroy(cfg);
  if (rc < 0) return IOError(std::string("FUSE loop: ") + strerror(-rc));
  return Status::Ok();
}

void FuseServer::Unmount() {
  Status s = UnmountPath(impl_->config.mountpoint, /*lazy=*/true);
  if (!s.ok()) impl_->config.log("unmount: " + s.ToString());
}

}  // namespace sealvol
