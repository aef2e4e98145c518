#include "pull/puller.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <future>
#include <set>

#include "base/file.h"
#include "base/thread_pool.h"
#include "hash/sha256.h"
#include "pull/chunk_stream.h"
#include "store/blob_reader.h"

namespace sealvol {
namespace {

constexpr size_t kHashBlock = 8u << 20;

// Makes every directory on the way to `rel` under `root`, refusing to pass
// through anything that is not a real directory (a symlink there could
// point outside `root`).
Status EnsureDirs(const std::string& root, const std::string& rel) {
  size_t pos = 0;
  while (pos <= rel.size()) {
    size_t slash = rel.find('/', pos);
    if (slash == std::string::npos) slash = rel.size();
    std::string path = root + "/" + rel.substr(0, slash);
    struct stat st;
    if (::lstat(path.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode)) {
        return FailedPrecondition(
            "refusing to write under " + path +
            ": it is not a directory (remove it, then pull again)");
      }
    } else if (errno != ENOENT) {
      return ErrnoStatus(errno, "stat " + path);
    } else if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
      return ErrnoStatus(errno, "create directory " + path);
    }
    pos = slash + 1;
  }
  return Status::Ok();
}

std::string Parent(const std::string& rel) {
  auto slash = rel.rfind('/');
  return slash == std::string::npos ? "" : rel.substr(0, slash);
}

// True when `path` is a regular file holding exactly the entry's bytes.
Result<bool> AlreadyThere(const std::string& path, const ManifestEntry& e) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) ||
      static_cast<uint64_t>(st.st_size) != e.size) {
    return false;
  }
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return false;
  Sha256 h;
  std::string buf(kHashBlock, '\0');
  uint64_t off = 0;
  for (;;) {
    SV_ASSIGN_OR_RETURN(size_t n, PreadFull(fd.get(), buf.data(), buf.size(),
                                            off, "read " + path));
    if (n == 0) break;
    h.Update(buf.data(), n);
    off += n;
  }
  if (h.Finish() != e.sha256) return false;
  mode_t want = e.executable ? 0755 : 0644;
  if ((st.st_mode & 07777) != want) ::chmod(path.c_str(), want);
  return true;
}

// Writes the entry's verified bytes to a temp file beside `path` and adds
// it to `batch`; nothing appears under `path` until the batch commits.
Status WriteFile(BlobStore& store, ThreadPool& pool, const ManifestEntry& e,
                 const std::string& path, RenameBatch* batch) {
  SV_ASSIGN_OR_RETURN(std::vector<ChunkRef> chunks, FileChunks(store, e));
  std::string tmp = TempPathFor(path);
  UniqueFd fd(
      ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (!fd.valid()) return ErrnoStatus(errno, "create " + tmp);
  auto fail = [&](Status s) {
    ::unlink(tmp.c_str());
    return s;
  };
  Sha256 h;
  ChunkStream stream(&store, &pool, std::move(chunks));
  while (!stream.done()) {
    size_t index = stream.index();
    uint64_t offset = stream.offset();
    auto data = stream.Next();
    if (!data) {
      return fail(data.error().WithContext(
          "'" + e.path + "' chunk " + std::to_string(index) + " at offset " +
          std::to_string(offset)));
    }
    h.Update(*data);
    Status s = WriteAll(fd.get(), *data, tmp);
    if (!s.ok()) return fail(s);
  }
  if (h.Finish() != e.sha256) {
    return fail(Corruption("'" + e.path +
                           "': its chunks do not hash to the file's sha256"));
  }
  if (::fchmod(fd.get(), e.executable ? 0755 : 0644) != 0 ||
      ::close(fd.Release()) != 0) {
    return fail(ErrnoStatus(errno, "finish " + tmp));
  }
  batch->Add(tmp, path, AtomicMode::kReplace);
  return Status::Ok();
}

Status PlaceSymlink(const ManifestEntry& e, const std::string& path) {
  std::string cur(4097, '\0');
  ssize_t n = ::readlink(path.c_str(), cur.data(), cur.size());
  if (n >= 0 && std::string_view(cur.data(), n) == e.target)
    return Status::Ok();
  std::string tmp = TempPathFor(path);
  if (::symlink(e.target.c_str(), tmp.c_str()) != 0) {
    return ErrnoStatus(errno, "create symlink " + tmp);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return ErrnoStatus(err, "rename into " + path);
  }
  return Status::Ok();
}

}  // namespace

Result<PullStats> Pull(BlobStore& store, const Manifest& manifest,
                       const std::string& dir, const PullOptions& options,
                       PullProgress* progress) {
  PullStats stats;
  if (progress) progress->total_bytes = manifest.TotalBytes();
  SV_RETURN_IF_ERROR(MakeDirs(dir));
  ThreadPool pool(options.threads);
  // Finished files are renamed into place in batches after one filesystem
  // sync each, rather than paying an fsync per file. A full batch commits on
  // a background thread while the next one is written.
  RenameBatch batch;
  uint64_t batch_bytes = 0;
  std::future<Status> committing;
  auto wait_previous = [&]() -> Status {
    return committing.valid() ? committing.get() : Status::Ok();
  };
  // A pull killed earlier left temp files; remove them from each directory
  // this pull writes into.
  std::set<std::string> cleaned;
  auto clean = [&](const std::string& parent) {
    if (cleaned.insert(parent).second) {
      RemoveOrphanTemps(parent.empty() ? dir : dir + "/" + parent);
    }
  };
  auto one = [&](const ManifestEntry& e) -> Status {
    std::string path = dir + "/" + e.path;
    if (e.type == EntryType::kDir) return EnsureDirs(dir, e.path);
    std::string parent = Parent(e.path);
    if (!parent.empty()) SV_RETURN_IF_ERROR(EnsureDirs(dir, parent));
    clean(parent);
    if (e.type == EntryType::kSymlink) return PlaceSymlink(e, path);
    SV_ASSIGN_OR_RETURN(bool same, AlreadyThere(path, e));
    if (same) {
      ++stats.files_skipped;
      stats.bytes_skipped += e.size;
    } else {
      SV_RETURN_IF_ERROR(WriteFile(store, pool, e, path, &batch));
      ++stats.files_written;
      stats.bytes_written += e.size;
      batch_bytes += e.size;
      if (batch_bytes >= options.batch_bytes) {
        SV_RETURN_IF_ERROR(wait_previous());
        committing = std::async(std::launch::async,
                                [full = std::move(batch), &dir]() mutable {
                                  return full.Commit(dir);
                                });
        batch = RenameBatch();
        batch_bytes = 0;
      }
    }
    if (progress) progress->done_bytes += e.size;
    return Status::Ok();
  };
  for (const auto& e : manifest.entries) {
    Status s = one(e);
    if (!s.ok()) {
      // Files finished before the failure are verified: keep them.
      (void)wait_previous();
      (void)batch.Commit(dir);
      return s;
    }
  }
  SV_RETURN_IF_ERROR(wait_previous());
  SV_RETURN_IF_ERROR(batch.Commit(dir));
  return stats;
}

Result<VerifyReport> Verify(BlobStore& store, const Manifest& manifest,
                            unsigned threads) {
  VerifyReport report;
  ThreadPool pool(threads);
  for (const auto& e : manifest.entries) {
    if (e.type != EntryType::kFile) continue;
    ++report.files;
    report.bytes += e.size;
    auto chunks = FileChunks(store, e);
    if (!chunks) {
      report.problems.push_back({e.path, -1, 0,
                                 e.chunks ? e.chunks->ToString() : "",
                                 chunks.error().ToString()});
      continue;
    }
    report.chunks += chunks->size();
    Sha256 h;
    bool chunk_failed = false;
    ChunkStream stream(&store, &pool, *chunks);
    while (!stream.done()) {
      VerifyProblem p{e.path, static_cast<int64_t>(stream.index()),
                      stream.offset(), stream.current().digest.ToString(), ""};
      auto data = stream.Next();
      if (!data) {
        p.what = data.error().ToString();
        report.problems.push_back(std::move(p));
        chunk_failed = true;
      } else if (!chunk_failed) {
        h.Update(*data);
      }
    }
    if (!chunk_failed && h.Finish() != e.sha256) {
      report.problems.push_back({e.path, -1, 0, e.sha256.ToString(),
                                 "chunks do not hash to the file's sha256"});
    }
  }
  return report;
}

Status CatFile(BlobStore& store, const ManifestEntry& file,
               const std::function<Status(std::string_view)>& out) {
  SV_ASSIGN_OR_RETURN(std::vector<ChunkRef> chunks, FileChunks(store, file));
  ThreadPool pool(2);
  ChunkStream stream(&store, &pool, std::move(chunks));
  while (!stream.done()) {
    size_t index = stream.index();
    auto data = stream.Next();
    if (!data) {
      return data.error().WithContext("'" + file.path + "' chunk " +
                                      std::to_string(index));
    }
    SV_RETURN_IF_ERROR(out(*data));
  }
  return Status::Ok();
}

}  // namespace sealvol
