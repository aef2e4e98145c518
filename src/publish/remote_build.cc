// Publisher::BuildRemote and the listing checks for remote sources.
#include <algorithm>
#include <deque>
#include <set>

#include "format/names.h"
#include "publish/chunk_feed.h"
#include "publish/prefetch.h"
#include "publish/publisher.h"

namespace sealvol {
namespace {

using publish_internal::BuildRun;
using publish_internal::ChunkedFile;
using publish_internal::ChunkFeed;

Status Refuse(const RemoteEntry& e, const std::string& why) {
  return InvalidArgument("the source lists '" + e.path + "', " + why +
                         "; nothing was read");
}

}  // namespace

Status CheckRemoteListing(std::vector<RemoteEntry>* entries) {
  std::sort(entries->begin(), entries->end(),
            [](const RemoteEntry& a, const RemoteEntry& b) {
              return a.path < b.path;
            });
  std::set<std::string_view> leaves;  // files and symlinks
  for (size_t i = 0; i < entries->size(); ++i) {
    const RemoteEntry& e = (*entries)[i];
    Status s = ValidatePath(e.path);
    if (!s.ok()) return Refuse(e, "which is not a safe path: " + s.message());
    if (i > 0 && (*entries)[i - 1].path == e.path) {
      return Refuse(e, "twice");
    }
    if (e.type == EntryType::kSymlink) {
      s = ValidateSymlinkTarget(e.path, e.target);
      if (!s.ok())
        return Refuse(e, "a symlink the volume cannot hold: " + s.message());
    }
    if (e.type == EntryType::kFile && e.size > kMaxFileSize) {
      return Refuse(e, "larger than a version's file size limit");
    }
    for (size_t slash = e.path.find('/'); slash != std::string::npos;
         slash = e.path.find('/', slash + 1)) {
      std::string_view parent(e.path.data(), slash);
      if (leaves.count(parent)) {
        return Refuse(e, "inside '" + std::string(parent) +
                             "', which is also listed as a file");
      }
    }
    if (e.type != EntryType::kDir) leaves.insert(e.path);
  }
  if (entries->size() > kMaxManifestEntries) {
    return InvalidArgument("the source lists " +
                           std::to_string(entries->size()) +
                           " entries, more than a version may hold");
  }
  return Status::Ok();
}

Result<BuiltVersion> Publisher::BuildRemote(RemoteSource& source,
                                            std::vector<RemoteEntry> entries,
                                            const KnownFiles& known,
                                            PublishProgress* progress) {
  SV_RETURN_IF_ERROR(CheckRemoteListing(&entries));
  BuiltVersion out;
  for (const auto& e : entries)
    out.bytes += e.type == EntryType::kFile ? e.size : 0;
  if (progress) progress->total_bytes = out.bytes;

  BuildRun run(store_, options_.compress, progress, options_.memory_budget);
  // One slot per file, in entry order; `fetch` marks the ones to read.
  std::deque<ChunkedFile> files;
  std::vector<const RemoteEntry*> file_entries;
  std::vector<RangeTask> tasks;
  uint64_t block = std::max<uint64_t>(options_.fetch_block, 1);
  for (const auto& e : entries) {
    if (e.type != EntryType::kFile) continue;
    size_t idx = files.size();
    ChunkedFile& fc = files.emplace_back();
    file_entries.push_back(&e);
    auto k = known.find(e.path);
    if (store_ != nullptr && k != known.end() && !e.identity.empty() &&
        k->second.identity == e.identity && k->second.entry.size == e.size &&
        k->second.entry.type == EntryType::kFile &&
        publish_internal::ReuseChunks(*store_, k->second.entry, &fc)) {
      run.CountReused(e.size);
      ++out.cached_files;
      continue;
    }
    if (e.size == 0) {
      tasks.push_back({idx, 0, 0});  // an empty file still gets its slot
      continue;
    }
    for (uint64_t off = 0; off < e.size; off += block) {
      tasks.push_back({idx, off, std::min(block, e.size - off)});
    }
  }

  std::atomic<uint64_t> fetched{0};
  {
    ThreadPool pool(options_.threads);
    RangePrefetcher prefetch(
        tasks,
        [&](const RangeTask& t) -> Result<std::string> {
          if (t.length == 0) return std::string();
          if (run.failed() || (progress && progress->cancel)) {
            return Unavailable("build stopped");
          }
          SV_ASSIGN_OR_RETURN(
              std::string bytes,
              source.ReadRange(*file_entries[t.file], t.offset, t.length));
          fetched += bytes.size();
          if (progress) progress->fetched_bytes += bytes.size();
          return bytes;
        },
        options_.fetch_threads, options_.fetch_window);
    std::unique_ptr<ChunkFeed> feed;
    for (size_t i = 0; i < tasks.size() && !run.failed(); ++i) {
      if (progress && progress->cancel) {
        run.Fail(FailedPrecondition("the sync was cancelled"));
        break;
      }
      const RangeTask& t = tasks[i];
      const RemoteEntry& e = *file_entries[t.file];
      if (t.offset == 0) {
        feed = std::make_unique<ChunkFeed>(run, pool, &files[t.file]);
      }
      Result<std::string> r = prefetch.Take(i);
      if (!r) {
        run.Fail(Status(r.error().code(), "reading '" + e.path + "' from " +
                                              source.Uri() + ": " +
                                              r.error().message()));
        break;
      }
      if (r->size() != t.length) {
        run.Fail(FailedPrecondition(
            "'" + e.path + "' changed in " + source.Uri() +
            " while it was read (asked for " + std::to_string(t.length) +
            " bytes at " + std::to_string(t.offset) + ", got " +
            std::to_string(r->size()) + "); sync again"));
        break;
      }
      feed->Feed(r->data(), r->size());
      if (progress) progress->read_bytes += r->size();
      if (t.offset + t.length == e.size) {
        feed->Finish();
        feed.reset();
      }
    }
    feed.reset();
    pool.Wait();
  }
  SV_RETURN_IF_ERROR(run.first_error);

  size_t next_file = 0;
  for (const auto& src : entries) {
    ManifestEntry e;
    e.path = src.path;
    e.type = src.type;
    if (src.type == EntryType::kSymlink) e.target = src.target;
    if (src.type == EntryType::kFile) {
      ChunkedFile& fc = files[next_file++];
      e.size = src.size;
      e.executable = src.executable;
      out.chunks += fc.chunks.size();
      SV_RETURN_IF_ERROR(publish_internal::FinishFileEntry(run, fc, &e));
      if (src.stated_sha256 && *src.stated_sha256 != e.sha256) {
        return Corruption(
            "'" + src.path + "' from " + source.Uri() + " hashes to " +
            e.sha256.ToString() + ", but the source states " +
            src.stated_sha256->ToString() + "; nothing was committed");
      }
      ++out.files;
    }
    out.manifest.entries.push_back(std::move(e));
  }
  SV_RETURN_IF_ERROR(publish_internal::FinishVersion(run, &out));
  out.fetched_bytes = fetched;
  return out;
}

}  // namespace sealvol
