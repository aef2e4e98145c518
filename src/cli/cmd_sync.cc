#include <chrono>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "cli/commands.h"
#include "cli/sync_jobs.h"
#include "sources/sync.h"

namespace sealvol::cli {
namespace {

struct SyncArgs {
  std::string source;
  std::string target;
  std::vector<std::string> include, exclude;
  std::string compress = "auto";
  std::string note;
  unsigned threads = 0;
  unsigned fetch_threads = 8;
  bool full = false;
  bool on_server = false;
  bool detach = false;
  S3Flags s3;
};

// The job request for `sync --on-server`: what the server may take from a
// client (no endpoints, credentials or local paths).
Status OnServer(const Globals& g, const SyncArgs& a, Target& st) {
  if (!a.s3.endpoint.empty() || !a.s3.region.empty() ||
      !a.s3.addressing.empty() || a.s3.no_sign) {
    return InvalidArgument(
        "--endpoint, --region, --addressing and --no-sign are the server's "
        "to choose with --on-server (its environment and config)");
  }
  SV_ASSIGN_OR_RETURN(Ref ref, ParseTagRef(a.target));
  nlohmann::json body = {{"source", a.source},   {"volume", ref.volume},
                         {"tag", ref.tag},       {"include", a.include},
                         {"exclude", a.exclude}, {"full", a.full}};
  if (!a.note.empty()) body["note"] = a.note;
  return SyncOnServer(g, st, body, a.detach);
}

Status DoSync(const Globals& g, const SyncArgs& a, Target& st) {
  SV_ASSIGN_OR_RETURN(Ref ref, ParseTagRef(a.target));
  SyncRequest req;
  req.source = a.source;
  req.volume = ref.volume;
  req.tag = ref.tag;
  req.include = a.include;
  req.exclude = a.exclude;
  req.full = a.full;
  req.actor = CurrentUser();
  req.note = a.note;
  req.annotations = {{"created", FormatTime(::time(nullptr))},
                     {"user", CurrentUser()},
                     {"host", HostName()}};
  req.flags.s3 = a.s3;
  req.flags.s3.retry_for = ClientRetryFor();
  const char* home = std::getenv("HOME");
  req.flags.home = home ? home : "/";
  SV_ASSIGN_OR_RETURN(req.publish.compress, ParseCompressPolicy(a.compress));
  req.publish.threads = a.threads;
  req.publish.fetch_threads = std::max(1u, a.fetch_threads);
  if (req.publish.threads == 0) {
    // Workers also wait on the store (or the registry): more keep it busy.
    req.publish.threads = std::max(4u, 2 * std::thread::hardware_concurrency());
  }
  PublishProgress progress;
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  };
  Result<SyncResult> r = [&] {
    ProgressLine line(g, [&] {
      return "syncing " +
             RateLine(progress.read_bytes, progress.total_bytes, elapsed()) +
             "  downloaded " + HumanBytes(progress.fetched_bytes) + "  new " +
             HumanBytes(progress.new_bytes);
    });
    return RunSync(st.repo(), req, &progress);
  }();
  if (!r) return r.error();
  double secs = elapsed();
  const BuiltVersion& b = r->built;
  if (g.json) {
    nlohmann::json j = {{"digest", r->digest.ToString()},
                        {"volume", ref.volume},
                        {"tag", ref.tag},
                        {"source", r->source_uri},
                        {"files", b.files},
                        {"bytes", b.bytes},
                        {"downloaded_bytes", b.fetched_bytes},
                        {"unchanged_files", b.cached_files},
                        {"new_bytes", b.new_bytes},
                        {"reused_bytes", b.reused_bytes},
                        {"stored_bytes", b.stored_bytes},
                        {"skipped_by_filters", r->skipped_by_filters},
                        {"identities_recorded", r->identities_recorded},
                        {"changed", !r->previous || *r->previous != r->digest},
                        {"seconds", secs}};
    if (!r->revision.empty()) j["revision"] = r->revision;
    PrintJson(j);
    return Status::Ok();
  }
  if (!g.quiet) {
    std::cerr << "synced " << r->source_uri
              << (r->revision.empty() ? "" : " (" + r->revision + ")") << " -> "
              << ref.volume << ":" << ref.tag << "  " << b.files << " files, "
              << HumanBytes(b.bytes) << "; downloaded "
              << HumanBytes(b.fetched_bytes) << " (" << b.cached_files
              << " files unchanged), new " << HumanBytes(b.new_bytes) << ", "
              << static_cast<int>(secs * 1000) / 1000.0 << "s\n";
    if (!r->identities_recorded) {
      std::cerr << "sealvol: too many files to record each one's source "
                   "identity; the next sync will download every file again "
                   "(stored chunks are still not uploaded twice)\n";
    }
  }
  std::cout << r->digest.ToString() << "\n";
  return Status::Ok();
}

}  // namespace

void RegisterSync(CLI::App& app, Globals& g) {
  auto a = std::make_shared<SyncArgs>();
  auto* cmd = app.add_subcommand(
      "sync",
      "Turn a bucket prefix, a Hugging Face repo or a directory into a "
      "version of VOLUME and point TAG (default 'latest') at it. Bytes "
      "stream from the source into the store with no local copy; files "
      "unchanged since the tag's version was synced from the same source are "
      "not downloaded again. Prints the version digest. See docs/sync.md.");
  cmd->add_option("SOURCE", a->source,
                  "hf://ORG/NAME[@REV], s3://BUCKET/PREFIX, "
                  "r2://ACCOUNT/BUCKET/PREFIX, cw://BUCKET/PREFIX, "
                  "gs://BUCKET/PREFIX, az://ACCOUNT/CONTAINER/PREFIX, or a "
                  "directory")
      ->required();
  cmd->add_option("VOLUME[:TAG]", a->target, "e.g. acme/llama3-8b:prod")
      ->required();
  cmd->add_option("--include", a->include,
                  "Only paths matching this glob (repeatable; '*' also "
                  "matches '/')");
  cmd->add_option("--exclude", a->exclude,
                  "Skip paths matching this glob (repeatable; wins over "
                  "--include)");
  cmd->add_option("--endpoint", a->s3.endpoint,
                  "S3-compatible or Azure Blob endpoint URL (default: AWS, "
                  "the presets of r2:// and cw://, or the Azure account's)");
  cmd->add_option("--region", a->s3.region, "Signing region");
  cmd->add_option("--addressing", a->s3.addressing,
                  "Bucket addressing: path or virtual (default: per endpoint)");
  cmd->add_flag("--no-sign", a->s3.no_sign,
                "Send unsigned requests (public buckets)");
  cmd->add_flag("--full", a->full,
                "Download every file, even ones unchanged since the last sync");
  cmd->add_option("--compress", a->compress,
                  "auto (zstd where it saves >= 5%), none, or zstd")
      ->capture_default_str();
  cmd->add_option("--threads", a->threads,
                  "Hash/store workers (0 = automatic)");
  cmd->add_option("--fetch-threads", a->fetch_threads,
                  "Ranges downloaded at once")
      ->capture_default_str();
  cmd->add_option("--note", a->note, "Note recorded in the tag's history");
  cmd->add_flag("--on-server", a->on_server,
                "Have the registry (--remote) run the sync with its own "
                "credentials; progress is shown until it ends");
  cmd->add_flag("--detach", a->detach,
                "With --on-server: print the job id and return at once "
                "(see `sealvol sync-jobs`)");
  cmd->add_flag("--json", g.json, "Print a JSON summary");
  cmd->callback([&g, a] {
    if (a->detach && !a->on_server) {
      RunNoStore([] { return InvalidArgument("--detach needs --on-server"); });
    }
    RunTarget(g, EmbeddedStore::Lock::kShared, [&](Target& st) {
      return a->on_server ? OnServer(g, *a, st) : DoSync(g, *a, st);
    });
  });
}

}  // namespace sealvol::cli
