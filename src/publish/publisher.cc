#include "publish/publisher.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <deque>
#include <memory>
#include <mutex>

#include "base/file.h"
#include "base/thread_pool.h"
#include "chunk/chunker.h"
#include "format/chunk_index.h"
#include "hash/sha256.h"
#include "publish/chunk_feed.h"
#include "publish/tree_walker.h"
#include "store/blob_reader.h"

namespace sealvol {
namespace {

int64_t Nanos(const struct timespec& ts) {
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

using publish_internal::BuildRun;
using publish_internal::ChunkedFile;
using publish_internal::ChunkFeed;

struct FileResult : ChunkedFile {
  const SourceFile* src;
  int64_t read_at_ns = 0;  // when reading finished; 0 = from the cache
};

int64_t NowNs() {
  struct timespec ts;
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return Nanos(ts);
}

// Fills `fr` from the file cache when the file is unchanged and the store
// still holds every chunk (refreshing their age for GC); false otherwise.
bool FromCache(FileCache& cache, BlobStore& store, BuildRun& run,
               FileResult* fr) {
  const SourceFile& f = *fr->src;
  auto hit = cache.Lookup(f);
  if (!hit) return false;
  ManifestEntry e;
  e.path = f.path;
  e.size = f.size;
  e.sha256 = hit->sha256;
  e.chunks = hit->chunks;
  if (!publish_internal::ReuseChunks(store, e, fr)) return false;
  run.CountReused(f.size);
  return true;
}

Status ScanFile(BuildRun& run, ThreadPool& pool, size_t block, FileResult* fr) {
  const SourceFile& f = *fr->src;
  UniqueFd fd(::open(f.abs_path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return ErrnoStatus(errno, "cannot read '" + f.path + "'");
  struct stat before;
  if (::fstat(fd.get(), &before) != 0) return ErrnoStatus(errno, f.abs_path);
  auto changed = [&] {
    return InvalidArgument("'" + f.path +
                           "' changed while it was being published; publish "
                           "again once it is no longer being written");
  };
  if (before.st_ino != f.ino ||
      static_cast<uint64_t>(before.st_size) != f.size ||
      Nanos(before.st_mtim) != f.mtime_ns) {
    return changed();
  }
  ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_SEQUENTIAL);

  ChunkFeed feed(run, pool, fr);
  std::string buf(block, '\0');
  uint64_t offset = 0;
  for (;;) {
    if (run.failed()) return Status::Ok();
    SV_ASSIGN_OR_RETURN(size_t n, PreadFull(fd.get(), buf.data(), buf.size(),
                                            offset, "read '" + f.path + "'"));
    if (n == 0) break;
    offset += n;
    if (offset > f.size) return changed();
    feed.Feed(buf.data(), n);
    if (run.progress) run.progress->read_bytes += n;
  }
  feed.Finish();
  struct stat after;
  if (::fstat(fd.get(), &after) != 0) return ErrnoStatus(errno, f.abs_path);
  if (offset != f.size || Nanos(after.st_mtim) != Nanos(before.st_mtim) ||
      Nanos(after.st_ctim) != Nanos(before.st_ctim) ||
      after.st_size != before.st_size) {
    return changed();
  }
  fr->read_at_ns = NowNs();
  return Status::Ok();
}

}  // namespace

Result<BuiltVersion> Publisher::Build(const std::string& dir,
                                      PublishProgress* progress) {
  SV_ASSIGN_OR_RETURN(std::vector<SourceFile> tree, WalkTree(dir));
  BuiltVersion out;
  for (const auto& f : tree)
    out.bytes += f.type == EntryType::kFile ? f.size : 0;
  if (progress) progress->total_bytes = out.bytes;

  BuildRun run(store_, options_.compress, progress, options_.memory_budget);
  std::deque<FileResult> files;
  {
    ThreadPool pool(options_.threads);
    for (const auto& f : tree) {
      if (f.type != EntryType::kFile) continue;
      FileResult& fr = files.emplace_back();
      fr.src = &f;
      if (cache_ != nullptr && store_ != nullptr &&
          FromCache(*cache_, *store_, run, &fr)) {
        ++out.cached_files;
        continue;
      }
      Status s = ScanFile(run, pool, options_.read_block, &fr);
      if (!s.ok()) {
        run.Fail(s);
        break;
      }
    }
    pool.Wait();
  }
  SV_RETURN_IF_ERROR(run.first_error);

  auto next_file = files.begin();
  for (const auto& f : tree) {
    ManifestEntry e;
    e.path = f.path;
    e.type = f.type;
    if (f.type == EntryType::kSymlink) e.target = f.target;
    if (f.type == EntryType::kFile) {
      FileResult& fr = *next_file++;
      e.size = f.size;
      e.executable = f.executable;
      out.chunks += fr.chunks.size();
      SV_RETURN_IF_ERROR(publish_internal::FinishFileEntry(run, fr, &e));
      if (cache_ != nullptr && fr.read_at_ns != 0) {
        cache_->Record(f, CachedFile{e.sha256, e.chunks}, fr.read_at_ns);
      }
      ++out.files;
    }
    out.manifest.entries.push_back(std::move(e));
  }
  SV_RETURN_IF_ERROR(publish_internal::FinishVersion(run, &out));
  // The cache only saves work later; failing to update it fails nothing.
  if (cache_ != nullptr) (void)cache_->Flush();
  return out;
}

}  // namespace sealvol
