#include "base/file.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>

namespace sealvol {

void UniqueFd::Reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Result<std::string> ReadFile(const std::string& path, uint64_t max_size) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return ErrnoStatus(errno, "open " + path);
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return ErrnoStatus(errno, "stat " + path);
  if (static_cast<uint64_t>(st.st_size) > max_size) {
    return InvalidArgument(path + " is " + std::to_string(st.st_size) +
                           " bytes, more than the limit of " +
                           std::to_string(max_size));
  }
  std::string out;
  out.resize(static_cast<size_t>(st.st_size));
  SV_ASSIGN_OR_RETURN(
      size_t n, PreadFull(fd.get(), out.data(), out.size(), 0, "read " + path));
  out.resize(n);
  return out;
}

Status WriteAll(int fd, std::string_view data, std::string_view what) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, std::string("write ") + std::string(what));
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return Status::Ok();
}

Result<size_t> PreadFull(int fd, char* buf, size_t len, uint64_t offset,
                         std::string_view what) {
  size_t done = 0;
  while (done < len) {
    ssize_t n =
        ::pread(fd, buf + done, len - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, what);
    }
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  return done;
}

Status MakeDirs(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) return IOError("create directory " + path + ": " + ec.message());
  return Status::Ok();
}

std::string TempPathFor(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  thread_local std::mt19937_64 rng{std::random_device{}()};
  auto slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  return dir + ".tmp-" + std::to_string(::getpid()) + "-" +
         std::to_string(counter.fetch_add(1)) + "-" + std::to_string(rng());
}

size_t RemoveOrphanTemps(const std::string& dir) {
  std::unique_ptr<DIR, int (*)(DIR*)> d(::opendir(dir.c_str()), ::closedir);
  if (!d) return 0;
  size_t removed = 0;
  while (dirent* e = ::readdir(d.get())) {
    std::string_view name = e->d_name;
    if (name.substr(0, 5) != ".tmp-") continue;
    long pid = std::strtol(e->d_name + 5, nullptr, 10);
    if (pid <= 0 ||
        (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)) {
      removed += ::unlinkat(dirfd(d.get()), e->d_name, 0) == 0;
    }
  }
  return removed;
}

}  // namespace sealvol

namespace sealvol {

Status SyncFilesystem(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return ErrnoStatus(errno, "open " + path);
  if (::syncfs(fd.get()) != 0) return ErrnoStatus(errno, "sync " + path);
  return Status::Ok();
}

Status RenameBatch::Commit(const std::string& anchor) {
  if (items_.empty()) return Status::Ok();
  Status s = SyncFilesystem(anchor);
  size_t i = 0;
  for (; s.ok() && i < items_.size(); ++i) {
    const Item& it = items_[i];
    unsigned flags = it.mode == AtomicMode::kNoReplace ? RENAME_NOREPLACE : 0;
    if (::renameat2(AT_FDCWD, it.tmp.c_str(), AT_FDCWD, it.final_path.c_str(),
                    flags) != 0) {
      if (errno == EEXIST && it.mode == AtomicMode::kNoReplace) {
        ::unlink(it.tmp.c_str());  // someone else stored the same content
      } else {
        s = ErrnoStatus(errno, "rename " + it.tmp + " to " + it.final_path);
        ::unlink(it.tmp.c_str());
      }
    }
  }
  if (!s.ok()) {
    items_.erase(items_.begin(), items_.begin() + i);
    Abandon();
    return s;
  }
  items_.clear();
  return SyncFilesystem(anchor);
}

void RenameBatch::Abandon() {
  for (const auto& it : items_) ::unlink(it.tmp.c_str());
  items_.clear();
}

Status WriteFileAtomically(const std::string& path, std::string_view data) {
  std::string tmp = TempPathFor(path);
  UniqueFd fd(
      ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (!fd.valid()) return ErrnoStatus(errno, "create " + tmp);
  Status s = WriteAll(fd.get(), data, tmp);
  if (s.ok() && ::fsync(fd.get()) != 0) s = ErrnoStatus(errno, "fsync " + tmp);
  if (s.ok() && ::rename(tmp.c_str(), path.c_str()) != 0) {
    s = ErrnoStatus(errno, "rename " + tmp + " to " + path);
  }
  if (!s.ok()) ::unlink(tmp.c_str());
  return s;
}

}  // namespace sealvol
