#include "cli/context.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>

#include "base/file.h"

namespace sealvol::cli {

int ExitCodeFor(const Status& s) {
  switch (s.code()) {
    case StatusCode::kOk:
      return kExitOk;
    case StatusCode::kInvalidArgument:
      return kExitUsage;
    case StatusCode::kNotFound:
      return kExitNotFound;
    case StatusCode::kCorruption:
      return kExitCorrupt;
    case StatusCode::kFailedPrecondition:
    case StatusCode::kAlreadyExists:
      return kExitConflict;
    case StatusCode::kPermissionDenied:
      return kExitPermission;
    default:
      return kExitError;
  }
}

std::string StoreRoot(const Globals& g) {
  if (!g.store_dir.empty()) return g.store_dir;
  if (const char* h = std::getenv("SEALVOL_HOME"); h && *h) return h;
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : ".") + "/.local/share/sealvol";
}

std::string DefaultCacheDir() {
  if (const char* d = std::getenv("SEALVOL_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) {
    return std::string(x) + "/sealvol";
  }
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : "/tmp") + "/.cache/sealvol";
}

EmbeddedStore::EmbeddedStore(std::string root,
                             std::unique_ptr<LocalBlobStore> blobs,
                             std::unique_ptr<SqliteMetaStore> meta, int lock_fd)
    : root_(std::move(root)),
      blobs_(std::move(blobs)),
      meta_(std::move(meta)),
      registry_(blobs_.get(), meta_.get()),
      lock_fd_(lock_fd) {}

EmbeddedStore::~EmbeddedStore() {
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

Result<std::unique_ptr<EmbeddedStore>> EmbeddedStore::Open(
    const std::string& root, Lock lock) {
  SV_RETURN_IF_ERROR(MakeDirs(root));
  UniqueFd fd(
      ::open((root + "/lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (!fd.valid()) return ErrnoStatus(errno, "open " + root + "/lock");
  if (lock != Lock::kNone) {
    int op = lock == Lock::kShared ? LOCK_SH : LOCK_EX;
    if (::flock(fd.get(), op | LOCK_NB) != 0) {
      if (errno != EWOULDBLOCK) return ErrnoStatus(errno, "lock " + root);
      std::cerr << (lock == Lock::kShared
                        ? "waiting for a garbage collection to finish...\n"
                        : "waiting for publishes in progress to finish...\n");
      if (::flock(fd.get(), op) != 0) return ErrnoStatus(errno, "lock " + root);
    }
  }
  SV_ASSIGN_OR_RETURN(auto blobs, LocalBlobStore::Open(root));
  SV_ASSIGN_OR_RETURN(auto meta, SqliteMetaStore::Open(root + "/meta.db"));
  return std::unique_ptr<EmbeddedStore>(
      new EmbeddedStore(root, std::move(blobs), std::move(meta), fd.Release()));
}

namespace {

[[noreturn]] void Fail(const Status& s) {
  std::cerr << "sealvol: " << s.message() << "\n";
  throw CLI::RuntimeError(ExitCodeFor(s));
}

}  // namespace

void RunNoStore(const std::function<Status()>& fn) {
  Status s = fn();
  if (!s.ok()) Fail(s);
}

void Run(const Globals& g, EmbeddedStore::Lock lock,
         const std::function<Status(EmbeddedStore&)>& fn) {
  RunNoStore([&]() -> Status {
    SV_ASSIGN_OR_RETURN(auto store, EmbeddedStore::Open(StoreRoot(g), lock));
    return fn(*store);
  });
}

std::chrono::milliseconds ClientRetryFor() {
  const char* v = std::getenv("SEALVOL_RETRY_FOR");
  double secs = v && *v ? std::atof(v) : 15.0;
  return std::chrono::milliseconds(static_cast<int64_t>(secs * 1000));
}

Result<std::unique_ptr<Target>> Target::OpenAt(
    const Globals& g, const std::optional<RemoteConfig>& remote,
    EmbeddedStore::Lock lock) {
  auto t = std::unique_ptr<Target>(new Target());
  t->remote_ = remote;
  if (remote) {
    t->remote_repo_ =
        std::make_unique<RemoteRepository>(t->NewClient(ClientRetryFor()));
    t->repo_ = t->remote_repo_.get();
  } else {
    SV_ASSIGN_OR_RETURN(t->embedded_, EmbeddedStore::Open(StoreRoot(g), lock));
    t->repo_ = &t->embedded_->registry();
  }
  return t;
}

Result<std::unique_ptr<Target>> Target::Open(const Globals& g,
                                             EmbeddedStore::Lock lock) {
  SV_ASSIGN_OR_RETURN(auto remote, ResolveRemote(g.remote));
  return OpenAt(g, remote, lock);
}

std::string Target::where() const {
  return remote_ ? remote_->url : embedded_->root();
}

std::shared_ptr<HttpClient> Target::NewClient(
    std::chrono::milliseconds retry_for) const {
  HttpClientOptions o;
  o.base_url = remote_->url;
  o.token = remote_->token;
  o.ca_file = remote_->ca_file;
  o.retry_for = retry_for;
  return std::make_shared<HttpClient>(o);
}

void RunTarget(const Globals& g, EmbeddedStore::Lock lock,
               const std::function<Status(Target&)>& fn) {
  RunNoStore([&]() -> Status {
    SV_ASSIGN_OR_RETURN(auto target, Target::Open(g, lock));
    return fn(*target);
  });
}

Result<Resolved> ResolveRef(Repository& reg, std::string_view text) {
  SV_ASSIGN_OR_RETURN(Ref ref, ParseRef(text));
  SV_ASSIGN_OR_RETURN(Digest digest, reg.Resolve(ref));
  SV_ASSIGN_OR_RETURN(Manifest m, reg.LoadManifest(ref.volume, digest));
  return Resolved{std::move(ref), digest, std::move(m)};
}

void PrintJson(const nlohmann::json& j) { std::cout << j.dump(2) << "\n"; }

std::string HumanBytes(uint64_t n) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = static_cast<double>(n);
  int u = 0;
  while (v >= 1024 && u < 5) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  if (u == 0)
    std::snprintf(buf, sizeof(buf), "%llu B", (unsigned long long)n);
  else
    std::snprintf(buf, sizeof(buf), "%.1f %s", v, units[u]);
  return buf;
}

std::string FormatTime(int64_t t) {
  time_t tt = static_cast<time_t>(t);
  struct tm tm;
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string CurrentUser() {
  if (const char* u = std::getenv("USER"); u && *u) return u;
  if (struct passwd* pw = ::getpwuid(::getuid())) return pw->pw_name;
  return "uid" + std::to_string(::getuid());
}

std::string HostName() {
  char buf[256] = {0};
  ::gethostname(buf, sizeof(buf) - 1);
  return buf;
}

ProgressLine::ProgressLine(const Globals& g,
                           std::function<std::string()> render)
    : render_(std::move(render)) {
  if (g.quiet || g.json || !::isatty(STDERR_FILENO)) return;
  thread_ = std::thread([this] {
    while (!stop_) {
      std::string line = render_();
      std::fprintf(stderr, "\r\033[K%s", line.c_str());
      std::fflush(stderr);
      for (int i = 0; i < 4 && !stop_; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    }
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
  });
}

ProgressLine::~ProgressLine() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

std::string RateLine(uint64_t done, uint64_t total, double seconds) {
  double rate = seconds > 0 ? done / seconds : 0;
  std::string out = HumanBytes(done) + " / " + HumanBytes(total);
  if (total > 0) out += "  " + std::to_string(done * 100 / total) + "%";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "  %.0f MB/s", rate / 1e6);
  out += buf;
  if (rate > 0 && total > done) {
    std::snprintf(buf, sizeof(buf), "  ETA %.0fs", (total - done) / rate);
    out += buf;
  }
  return out;
}

}  // namespace sealvol::cli
