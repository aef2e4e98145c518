#include "mount/node_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <vector>

#include "base/file.h"
#include "hash/sha256.h"

namespace sealvol {
namespace {

// A hit refreshes a file's mtime (its LRU position) at most this often, so a
// busy chunk does not cost a metadata write per read.
constexpr int64_t kTouchAfterSeconds = 600;

// Files larger than this are not chunks: never loaded.
constexpr uint64_t kMaxCachedFile = 64ull << 20;

}  // namespace

Result<std::unique_ptr<NodeCache>> NodeCache::Open(const std::string& dir,
                                                   uint64_t capacity,
                                                   MountStats* stats) {
  std::string chunks = dir + "/chunks";
  SV_RETURN_IF_ERROR(MakeDirs(chunks));
  if (access(chunks.c_str(), R_OK | W_OK | X_OK) != 0) {
    return ErrnoStatus(errno, "node cache " + chunks);
  }
  return std::unique_ptr<NodeCache>(new NodeCache(chunks, capacity, stats));
}

NodeCache::NodeCache(std::string dir, uint64_t capacity, MountStats* stats)
    : dir_(std::move(dir)),
      capacity_(capacity),
      stats_(stats ? stats : &own_stats_),
      trimmer_([this] { TrimLoop(); }),
      writers_{std::thread([this] { WriteLoop(); }),
               std::thread([this] { WriteLoop(); })} {}

NodeCache::~NodeCache() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  write_cv_.notify_all();
  for (auto& w : writers_) w.join();  // the queued writes finish first
  trimmer_.join();
}

void NodeCache::StoreAsync(const Digest& digest, ChunkPtr bytes) {
  std::unique_lock lock(mu_);
  write_cv_.wait(lock, [&] {
    return write_bytes_ < kWriteBehindBytes || writes_.empty();
  });
  write_bytes_ += bytes->size();
  writes_.emplace_back(digest, std::move(bytes));
  write_cv_.notify_all();
}

void NodeCache::WriteLoop() {
  std::unique_lock lock(mu_);
  for (;;) {
    write_cv_.wait(lock, [&] { return stop_ || !writes_.empty(); });
    if (writes_.empty()) return;  // stopping, and nothing left to write
    auto [digest, bytes] = std::move(writes_.front());
    writes_.pop_front();
    lock.unlock();
    Store(digest, *bytes);
    lock.lock();
    write_bytes_ -= bytes->size();
    write_cv_.notify_all();
  }
}

std::string NodeCache::PathFor(const Digest& digest) const {
  std::string hex = digest.Hex();
  return dir_ + "/" + hex.substr(0, 2) + "/" + hex;
}

std::string NodeCache::ChunkPath(const std::string& dir, const Digest& digest) {
  std::string hex = digest.Hex();
  return dir + "/chunks/" + hex.substr(0, 2) + "/" + hex;
}

std::optional<std::string> NodeCache::Load(const Digest& digest,
                                           std::optional<uint64_t> size) {
  std::string path = PathFor(digest);
  UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd.valid()) return std::nullopt;
  struct stat st;
  if (fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  auto file_size = static_cast<uint64_t>(st.st_size);
  bool bad = file_size > kMaxCachedFile || (size && *size != file_size);
  std::string bytes;
  if (!bad) {
    bytes.resize(file_size);
    auto n = PreadFull(fd.get(), bytes.data(), bytes.size(), 0, path);
    bad = !n || *n != file_size || Sha256::Of(bytes) != digest;
  }
  if (bad) {
    // What a crash or a bad disk left: never served, removed so the next
    // fetch replaces it.
    unlink(path.c_str());
    stats_->disk_dropped_corrupt.fetch_add(1);
    return std::nullopt;
  }
  if (time(nullptr) - st.st_mtime > kTouchAfterSeconds) {
    futimens(fd.get(), nullptr);
  }
  return bytes;
}

bool NodeCache::Contains(const Digest& digest) const {
  return access(PathFor(digest).c_str(), F_OK) == 0;
}

void NodeCache::Store(const Digest& digest, std::string_view bytes) {
  std::string path = PathFor(digest);
  std::string tmp = TempPathFor(path);
  UniqueFd fd(open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (!fd.valid() && errno == ENOENT) {
    if (MakeDirs(path.substr(0, path.rfind('/'))).ok()) {
      fd = UniqueFd(
          open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
    }
  }
  bool ok = fd.valid() && WriteAll(fd.get(), bytes, tmp).ok();
  fd.Reset();
  // No fsync: a file the crash truncates fails its hash on Load and is
  // dropped, which is cheaper than a flush per chunk.
  if (!ok || rename(tmp.c_str(), path.c_str()) != 0) {
    unlink(tmp.c_str());
    stats_->disk_store_errors.fetch_add(1);
    return;
  }
  stats_->disk_stored.fetch_add(1);
  if (usage_.fetch_add(bytes.size()) + bytes.size() > capacity_) {
    {
      std::lock_guard lock(mu_);
      trim_wanted_ = true;
    }
    cv_.notify_all();
  }
}

void NodeCache::TrimLoop() {
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || trim_wanted_; });
    if (stop_) return;
    trim_wanted_ = false;
    lock.unlock();
    Trim();
    lock.lock();
  }
}

void NodeCache::Trim() {
  struct File {
    int64_t mtime;
    uint64_t size;
    std::string path;
  };
  // One scan at a time per process; other processes' scans may overlap,
  // which at worst evicts a little more than needed.
  std::lock_guard trim_lock(trim_mu_);
  uint64_t usage_before = usage_.load();
  std::vector<File> files;
  uint64_t total = 0;
  DIR* top = opendir(dir_.c_str());
  if (top == nullptr) return;
  while (dirent* sub = readdir(top)) {
    if (sub->d_name[0] == '.') continue;
    std::string subdir = dir_ + "/" + sub->d_name;
    RemoveOrphanTemps(subdir);
    DIR* d = opendir(subdir.c_str());
    if (d == nullptr) continue;
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] == '.') continue;
      std::string path = subdir + "/" + e->d_name;
      struct stat st;
      if (lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
      total += static_cast<uint64_t>(st.st_size);
      files.push_back(
          {st.st_mtime, static_cast<uint64_t>(st.st_size), std::move(path)});
    }
    closedir(d);
  }
  closedir(top);
  if (total > capacity_) {
    std::sort(files.begin(), files.end(),
              [](const File& a, const File& b) { return a.mtime < b.mtime; });
    uint64_t target = capacity_ / 10 * 9;
    for (const File& f : files) {
      if (total <= target) break;
      if (unlink(f.path.c_str()) == 0) {
        total -= f.size;
        stats_->disk_evicted.fetch_add(1);
      }
    }
  }
  // What was stored while the scan ran stays counted.
  usage_.fetch_add(total - usage_before);
}

}  // namespace sealvol
