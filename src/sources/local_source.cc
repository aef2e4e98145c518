#include "sources/local_source.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>

#include "base/file.h"
#include "publish/tree_walker.h"

namespace sealvol {
namespace {
constexpr int64_t kRacyWindowNs = 2'000'000'000;
}  // namespace

Result<std::vector<RemoteEntry>> LocalDirSource::List() {
  SV_ASSIGN_OR_RETURN(std::vector<SourceFile> tree, WalkTree(dir_));
  std::vector<RemoteEntry> out;
  out.reserve(tree.size());
  struct timespec ts;
  ::clock_gettime(CLOCK_REALTIME, &ts);
  int64_t now_ns = static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
  for (const auto& f : tree) {
    RemoteEntry e;
    e.path = f.path;
    e.type = f.type;
    e.executable = f.executable;
    e.size = f.size;
    e.target = f.target;
    e.locator = f.abs_path;
    // A file written within the clock's granularity of now could change
    // again without its times changing: give it no identity, so the next
    // sync reads it.
    if (f.type == EntryType::kFile &&
        now_ns - std::max(f.mtime_ns, f.ctime_ns) > kRacyWindowNs) {
      e.identity = std::to_string(f.ino) + ":" + std::to_string(f.size) + ":" +
                   std::to_string(f.mtime_ns);
    }
    out.push_back(std::move(e));
  }
  return out;
}

Result<std::string> LocalDirSource::ReadRange(const RemoteEntry& e,
                                              uint64_t offset,
                                              uint64_t length) {
  UniqueFd fd(::open(e.locator.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return ErrnoStatus(errno, "cannot read '" + e.path + "'");
  std::string buf(length, '\0');
  SV_ASSIGN_OR_RETURN(size_t n, PreadFull(fd.get(), buf.data(), length, offset,
                                          "read '" + e.path + "'"));
  buf.resize(n);
  return buf;
}

}  // namespace sealvol
