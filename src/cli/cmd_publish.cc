#include <chrono>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <thread>

#include "base/file.h"
#include "cli/commands.h"
#include "hash/sha256.h"
#include "publish/publisher.h"

namespace sealvol::cli {
namespace {

struct PublishArgs {
  std::string dir;
  std::string target;
  std::string compress = "auto";
  std::string note;
  unsigned threads = 0;
  bool no_cache = false;
};

nlohmann::json Annotations(const std::string& dir) {
  char buf[4096];
  std::string abs = ::realpath(dir.c_str(), buf) ? buf : dir;
  return {{"created", FormatTime(::time(nullptr))},
          {"user", CurrentUser()},
          {"host", HostName()},
          {"source", "file://" + abs}};
}

Status DoPublish(const Globals& g, const PublishArgs& a, Target& st) {
  SV_ASSIGN_OR_RETURN(Ref ref, ParseTagRef(a.target));
  SV_ASSIGN_OR_RETURN(CompressPolicy policy, ParseCompressPolicy(a.compress));
  PublishOptions opts;
  opts.compress = policy;
  opts.threads = a.threads;
  if (st.remote() && opts.threads == 0) {
    // Workers also wait on the network: more of them keep uploads flowing.
    opts.threads = std::max(4u, 2 * std::thread::hardware_concurrency());
  }
  std::unique_ptr<FileCache> cache;
  if (!a.no_cache) {
    // The cache only saves work: without it the publish reads everything.
    // It belongs to one store: the embedded one, or one per remote URL.
    std::string dir = st.embedded() ? st.embedded()->root() + "/cache"
                                    : DefaultCacheDir() + "/publish/" +
                                          Sha256::Of(st.where()).Short();
    Status made = MakeDirs(dir);
    auto opened = made.ok() ? FileCache::Open(dir + "/files.db")
                            : Result<std::unique_ptr<FileCache>>(made);
    if (opened) {
      cache = std::move(*opened);
    } else if (!g.quiet) {
      std::cerr << "sealvol: file cache unavailable, reading every file ("
                << opened.error().message() << ")\n";
    }
  }
  SV_ASSIGN_OR_RETURN(BlobStore * blobs, st.repo().Blobs(ref.volume));
  Publisher publisher(blobs, opts, cache.get());
  PublishProgress progress;
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  };
  Result<BuiltVersion> built = [&] {
    ProgressLine line(g, [&] {
      return "publishing " +
             RateLine(progress.read_bytes, progress.total_bytes, elapsed()) +
             "  new " + HumanBytes(progress.new_bytes) + "  reused " +
             HumanBytes(progress.reused_bytes);
    });
    return publisher.Build(a.dir, &progress);
  }();
  if (!built) return built.error();
  SV_ASSIGN_OR_RETURN(Digest digest, st.repo().CommitVersion(
                                         ref.volume, built->manifest_bytes,
                                         Annotations(a.dir).dump(), policy));
  SV_RETURN_IF_ERROR(st.repo().MoveTag(ref.volume, ref.tag, digest,
                                       TagExpect::Any(), CurrentUser(),
                                       a.note.empty() ? "publish" : a.note));
  double secs = elapsed();
  if (g.json) {
    PrintJson({{"digest", digest.ToString()},
               {"volume", ref.volume},
               {"tag", ref.tag},
               {"files", built->files},
               {"bytes", built->bytes},
               {"new_bytes", built->new_bytes},
               {"reused_bytes", built->reused_bytes},
               {"stored_bytes", built->stored_bytes},
               {"chunks", built->chunks},
               {"new_chunks", built->new_chunks},
               {"cached_files", built->cached_files},
               {"seconds", secs}});
    return Status::Ok();
  }
  if (!g.quiet) {
    std::cerr << "published " << ref.volume << ":" << ref.tag << "  "
              << built->files << " files, " << HumanBytes(built->bytes)
              << "; new " << HumanBytes(built->new_bytes) << " (stored "
              << HumanBytes(built->stored_bytes) << "), reused "
              << HumanBytes(built->reused_bytes) << ", "
              << static_cast<int>(secs * 1000) / 1000.0 << "s\n";
  }
  std::cout << digest.ToString() << "\n";
  return Status::Ok();
}

}  // namespace

void RegisterPublish(CLI::App& app, Globals& g) {
  auto a = std::make_shared<PublishArgs>();
  auto* cmd = app.add_subcommand(
      "publish",
      "Publish DIR as a new version of VOLUME and point TAG (default "
      "'latest') at it. Prints the version digest. Stores only chunks the "
      "store lacks.");
  cmd->add_option("DIR", a->dir, "Directory to publish")->required();
  cmd->add_option("VOLUME[:TAG]", a->target, "e.g. acme/llama3-8b:prod")
      ->required();
  cmd->add_option("--compress", a->compress,
                  "auto (zstd where it saves >= 5%), none, or zstd")
      ->capture_default_str();
  cmd->add_option("--threads", a->threads, "Worker threads (0 = one per core)");
  cmd->add_option("--note", a->note, "Note recorded in the tag's history");
  cmd->add_flag("--no-cache", a->no_cache,
                "Read and hash every file, even ones unchanged (same inode, "
                "size and times) since an earlier publish into this store");
  cmd->add_flag("--json", g.json, "Print a JSON summary");
  cmd->callback([&g, a] {
    RunTarget(g, EmbeddedStore::Lock::kShared,
              [&](Target& st) { return DoPublish(g, *a, st); });
  });
}

}  // namespace sealvol::cli
