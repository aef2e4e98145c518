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
#include "publish/tree_walker.h"
#include "store/blob_reader.h"

namespace sealvol {
namespace {

int64_t Nanos(const struct timespec& ts) {
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// Shared by the scanner and the workers of one Build.
struct Run {
  BlobStore* store;
  CompressPolicy compress;
  PublishProgress* progress;
  ByteBudget budget;
  std::atomic<uint64_t> new_bytes{0}, reused_bytes{0}, stored_bytes{0};
  std::atomic<uint64_t> new_chunks{0};
  std::mutex mu;
  Status first_error;  // GUARDED_BY(mu)

  Run(BlobStore* s, CompressPolicy c, PublishProgress* p, uint64_t budget_bytes)
      : store(s), compress(c), progress(p), budget(budget_bytes) {}

  void Fail(Status s) {
    std::lock_guard<std::mutex> lock(mu);
    if (first_error.ok()) first_error = std::move(s);
  }
  bool failed() {
    std::lock_guard<std::mutex> lock(mu);
    return !first_error.ok();
  }

  // Stores one blob unless the store has it; returns whether it was new.
  Result<bool> Store(const Digest& d, std::string_view plain) {
    if (store == nullptr) return false;
    SV_ASSIGN_OR_RETURN(bool has, store->Has(d));
    if (has) {
      // Refresh its age so a concurrent GC's grace period covers this run.
      SV_RETURN_IF_ERROR(store->Keep(d));
      return false;
    }
    std::string env = EncodeEnvelope(plain, compress);
    SV_ASSIGN_OR_RETURN(bool written, store->Put(d, env));
    if (written) stored_bytes += env.size();
    return written;
  }

  void StoreChunk(std::string data, ChunkRef* slot) {
    uint64_t len = data.size();
    slot->digest = Sha256::Of(data);
    slot->length = static_cast<uint32_t>(len);
    if (!failed()) {
      auto isnew = Store(slot->digest, data);
      if (!isnew) {
        Fail(isnew.error());
      } else if (*isnew) {
        new_bytes += len;
        ++new_chunks;
        if (progress) progress->new_bytes += len;
      } else {
        reused_bytes += len;
        if (progress) progress->reused_bytes += len;
      }
    }
    budget.Release(len);
  }
};

struct FileResult {
  const SourceFile* src;
  Digest sha256;
  std::deque<ChunkRef> chunks;  // deque: workers hold pointers into it
  int64_t read_at_ns = 0;       // when reading finished; 0 = from the cache
};

int64_t NowNs() {
  struct timespec ts;
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return Nanos(ts);
}

// Fills `fr` from the file cache when the file is unchanged and the store
// still holds every chunk (refreshing their age for GC); false otherwise.
bool FromCache(FileCache& cache, BlobStore& store, Run& run, FileResult* fr) {
  const SourceFile& f = *fr->src;
  auto hit = cache.Lookup(f);
  if (!hit) return false;
  ManifestEntry e;
  e.path = f.path;
  e.size = f.size;
  e.sha256 = hit->sha256;
  e.chunks = hit->chunks;
  auto chunks = FileChunks(store, e);
  if (!chunks) return false;
  for (const auto& c : *chunks) {
    if (!store.Keep(c.digest).ok()) return false;
  }
  if (hit->chunks && !store.Keep(*hit->chunks).ok()) return false;
  fr->sha256 = hit->sha256;
  fr->chunks.assign(chunks->begin(), chunks->end());
  run.reused_bytes += f.size;
  if (run.progress) {
    run.progress->read_bytes += f.size;
    run.progress->reused_bytes += f.size;
  }
  return true;
}

Status ScanFile(Run& run, ThreadPool& pool, size_t block, FileResult* fr) {
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

  Chunker chunker;
  Sha256 file_hash;
  std::string buf(block, '\0');
  std::string pending;  // bytes of the current chunk so far
  uint64_t offset = 0;
  auto submit = [&] {
    ChunkRef* slot = &fr->chunks.emplace_back();
    auto data = std::make_shared<std::string>(std::move(pending));
    pending = std::string();
    pool.Submit([&run, slot, data] { run.StoreChunk(std::move(*data), slot); });
  };
  for (;;) {
    if (run.failed()) return Status::Ok();
    SV_ASSIGN_OR_RETURN(size_t n, PreadFull(fd.get(), buf.data(), buf.size(),
                                            offset, "read '" + f.path + "'"));
    if (n == 0) break;
    offset += n;
    if (offset > f.size) return changed();
    file_hash.Update(buf.data(), n);
    size_t pos = 0;
    while (pos < n) {
      bool cut;
      size_t take = chunker.Next(
          reinterpret_cast<const uint8_t*>(buf.data()) + pos, n - pos, &cut);
      if (pending.empty()) {
        // Reserve the budget before the bytes are copied in: this bounds
        // the data held in pending and queued chunks.
        run.budget.Acquire(kChunkParamsV1.max_size);
        pending.reserve(kChunkParamsV1.max_size);
      }
      pending.append(buf.data() + pos, take);
      pos += take;
      if (cut) {
        run.budget.Release(kChunkParamsV1.max_size - pending.size());
        submit();
      }
    }
    if (run.progress) run.progress->read_bytes += n;
  }
  if (!pending.empty()) {
    run.budget.Release(kChunkParamsV1.max_size - pending.size());
    submit();
  }
  struct stat after;
  if (::fstat(fd.get(), &after) != 0) return ErrnoStatus(errno, f.abs_path);
  if (offset != f.size || Nanos(after.st_mtim) != Nanos(before.st_mtim) ||
      Nanos(after.st_ctim) != Nanos(before.st_ctim) ||
      after.st_size != before.st_size) {
    return changed();
  }
  fr->sha256 = file_hash.Finish();
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

  Run run(store_, options_.compress, progress, options_.memory_budget);
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
      e.sha256 = fr.sha256;
      out.chunks += fr.chunks.size();
      if (fr.chunks.size() == 1 && fr.chunks[0].digest != fr.sha256) {
        return Corruption("internal: one-chunk file '" + f.path +
                          "' hashed two ways");
      }
      if (fr.chunks.size() > 1) {
        ChunkIndex index{{fr.chunks.begin(), fr.chunks.end()}};
        std::string bytes = SerializeChunkIndex(index);
        Digest d = Sha256::Of(bytes);
        SV_ASSIGN_OR_RETURN(bool isnew, run.Store(d, bytes));
        (void)isnew;
        e.chunks = d;
      }
      if (cache_ != nullptr && fr.read_at_ns != 0) {
        cache_->Record(f, CachedFile{e.sha256, e.chunks}, fr.read_at_ns);
      }
      ++out.files;
    }
    out.manifest.entries.push_back(std::move(e));
  }
  SV_ASSIGN_OR_RETURN(out.manifest_bytes, SerializeManifest(out.manifest));
  out.digest = Sha256::Of(out.manifest_bytes);
  out.new_bytes = run.new_bytes;
  out.reused_bytes = run.reused_bytes;
  out.stored_bytes = run.stored_bytes;
  out.new_chunks = run.new_chunks;
  // The cache only saves work later; failing to update it fails nothing.
  if (cache_ != nullptr) (void)cache_->Flush();
  return out;
}

}  // namespace sealvol
