#include "publish/tree_walker.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <memory>

#include "format/names.h"

namespace sealvol {
namespace {

int64_t Nanos(const struct timespec& ts) {
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

Status Refuse(const std::string& rel, std::string_view why) {
  return InvalidArgument("cannot publish '" + rel + "': " + std::string(why));
}

Status Walk(const std::string& abs, const std::string& rel,
            std::vector<SourceFile>* out) {
  std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(abs.c_str()), ::closedir);
  if (!dir) return ErrnoStatus(errno, "open directory " + abs);
  std::vector<std::string> names;
  errno = 0;
  while (dirent* e = ::readdir(dir.get())) {
    std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(std::move(name));
  }
  if (errno != 0) return ErrnoStatus(errno, "read directory " + abs);
  if (names.empty() && !rel.empty()) {
    SourceFile d;
    d.path = rel;
    d.abs_path = abs;
    d.type = EntryType::kDir;
    out->push_back(std::move(d));
    return Status::Ok();
  }
  for (const auto& name : names) {
    std::string child_rel = rel.empty() ? name : rel + "/" + name;
    std::string child_abs = abs + "/" + name;
    Status valid = ValidatePath(child_rel);
    if (!valid.ok()) return Refuse(child_rel, valid.message());
    struct stat st;
    if (::lstat(child_abs.c_str(), &st) != 0) {
      return ErrnoStatus(errno, "stat " + child_abs);
    }
    SourceFile f;
    f.path = child_rel;
    f.abs_path = child_abs;
    f.dev = st.st_dev;
    f.ino = st.st_ino;
    f.mtime_ns = Nanos(st.st_mtim);
    f.ctime_ns = Nanos(st.st_ctim);
    if (S_ISDIR(st.st_mode)) {
      SV_RETURN_IF_ERROR(Walk(child_abs, child_rel, out));
      continue;
    }
    if (S_ISREG(st.st_mode)) {
      f.type = EntryType::kFile;
      f.size = static_cast<uint64_t>(st.st_size);
      f.executable = (st.st_mode & S_IXUSR) != 0;
      if (::access(child_abs.c_str(), R_OK) != 0) {
        return ErrnoStatus(errno, "cannot publish '" + child_rel + "'");
      }
    } else if (S_ISLNK(st.st_mode)) {
      f.type = EntryType::kSymlink;
      std::string target(4097, '\0');
      ssize_t n = ::readlink(child_abs.c_str(), target.data(), target.size());
      if (n < 0) return ErrnoStatus(errno, "readlink " + child_abs);
      target.resize(static_cast<size_t>(n));
      Status ok = ValidateSymlinkTarget(child_rel, target);
      if (!ok.ok()) return Refuse(child_rel, ok.message());
      f.target = std::move(target);
    } else {
      const char* kind = S_ISSOCK(st.st_mode)   ? "a socket"
                         : S_ISFIFO(st.st_mode) ? "a FIFO"
                                                : "a device";
      return Refuse(child_rel, std::string("it is ") + kind +
                                   "; only files, directories and symlinks "
                                   "can be published");
    }
    out->push_back(std::move(f));
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<SourceFile>> WalkTree(const std::string& root) {
  struct stat st;
  if (::stat(root.c_str(), &st) != 0) {
    return ErrnoStatus(errno, "cannot publish " + root);
  }
  if (!S_ISDIR(st.st_mode)) {
    return InvalidArgument("cannot publish " + root + ": not a directory");
  }
  std::vector<SourceFile> out;
  // Absolute paths: they key the file cache.
  char resolved[PATH_MAX];
  if (::realpath(root.c_str(), resolved) == nullptr) {
    return ErrnoStatus(errno, "cannot publish " + root);
  }
  std::string r = resolved;
  SV_RETURN_IF_ERROR(Walk(r, "", &out));
  std::sort(
      out.begin(), out.end(),
      [](const SourceFile& a, const SourceFile& b) { return a.path < b.path; });
  return out;
}

}  // namespace sealvol
