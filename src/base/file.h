// File helpers over POSIX: an owning fd, whole-file reads with a size cap,
// and RenameBatch, the durable publish-by-rename every writer uses (temp
// files, one filesystem sync, renames, another sync).
//
// Thread safety: free functions are safe to call concurrently; a UniqueFd is
// owned by one thread at a time.
#ifndef SEALVOL_BASE_FILE_H_
#define SEALVOL_BASE_FILE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace sealvol {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() { Reset(); }
  UniqueFd(UniqueFd&& o) noexcept : fd_(o.Release()) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept {
    if (this != &o) {
      Reset();
      fd_ = o.Release();
    }
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int Release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void Reset();

 private:
  int fd_ = -1;
};

// Reads the whole file at `path`. InvalidArgument when it is larger than
// `max_size` bytes (the file is not read past the cap).
Result<std::string> ReadFile(const std::string& path, uint64_t max_size);

// Writes all of `data` to `fd`, retrying short writes and EINTR.
Status WriteAll(int fd, std::string_view data, std::string_view what);

// Reads up to `len` bytes at `offset`, retrying short reads and EINTR; fewer
// bytes only at end of file. Returns the number read.
Result<size_t> PreadFull(int fd, char* buf, size_t len, uint64_t offset,
                         std::string_view what);

// Writes `data` to a temp file beside `path`, fsyncs it and renames it over
// `path`: readers see the old file or the whole new one.
Status WriteFileAtomically(const std::string& path, std::string_view data);

// Creates `path` and its parents (mode 0755); OK when it already exists.
Status MakeDirs(const std::string& path);

enum class AtomicMode {
  kReplace,    // an existing file is replaced atomically
  kNoReplace,  // an existing file is kept
};

// A unique temp path beside `path` (same directory, so rename is atomic):
// `.tmp-<pid>-<counter>-<random>`.
std::string TempPathFor(const std::string& path);

// Removes temp files (named by TempPathFor) directly inside `dir` whose
// writing process no longer runs: what a killed writer left behind.
// Returns how many were removed.
size_t RemoveOrphanTemps(const std::string& dir);

// Flushes every dirty page and inode of the filesystem holding `path`
// (syncfs): one device flush for a whole batch of files, where an fsync per
// file would pay the flush latency each time.
Status SyncFilesystem(const std::string& path);

// Files written to temp names and made visible together: Commit syncs the
// filesystem (the data is durable), renames each temp file to its final
// name, and syncs again (the names are durable). Until Commit nothing is
// visible under a final name; a crash leaves only `.tmp-*` files.
//
// Thread safety: not thread safe; callers serialize.
class RenameBatch {
 public:
  void Add(std::string tmp, std::string final_path, AtomicMode mode) {
    items_.push_back({std::move(tmp), std::move(final_path), mode});
  }
  bool empty() const { return items_.empty(); }
  // Renames everything after syncing the filesystem of `anchor`. With
  // kNoReplace an existing final file is kept and the temp file removed.
  // On error the remaining temp files are removed.
  Status Commit(const std::string& anchor);
  // Removes every temp file not yet committed.
  void Abandon();

 private:
  struct Item {
    std::string tmp, final_path;
    AtomicMode mode;
  };
  std::vector<Item> items_;
};

}  // namespace sealvol

#endif  // SEALVOL_BASE_FILE_H_
