#include <chrono>
#include <iostream>

#include "cli/commands.h"
#include "pull/puller.h"

namespace sealvol::cli {

void RegisterPull(CLI::App& app, Globals& g) {
  struct Args {
    std::string ref;
    std::string dir;
    unsigned threads = 0;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "pull",
      "Write a version into DIR, verifying every chunk and file. Writes "
      "nothing outside DIR, never leaves a partial file, and skips files "
      "that are already identical.");
  cmd->add_option("REF", a->ref, "VOLUME[:TAG] or VOLUME@DIGEST")->required();
  cmd->add_option("DIR", a->dir, "Target directory")->required();
  cmd->add_option("--threads", a->threads, "Fetch threads (0 = one per core)");
  cmd->add_flag("--json", g.json, "Print a JSON summary");
  cmd->callback([&g, a] {
    RunTarget(g, EmbeddedStore::Lock::kNone, [&](Target& st) -> Status {
      SV_ASSIGN_OR_RETURN(Resolved r, ResolveRef(st.repo(), a->ref));
      SV_ASSIGN_OR_RETURN(BlobStore * blobs, st.repo().Blobs(r.ref.volume));
      PullProgress progress;
      auto start = std::chrono::steady_clock::now();
      auto elapsed = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                             start)
            .count();
      };
      Result<PullStats> stats = [&] {
        ProgressLine line(g, [&] {
          return "pulling " +
                 RateLine(progress.done_bytes, progress.total_bytes, elapsed());
        });
        return Pull(*blobs, r.manifest, a->dir, PullOptions{a->threads},
                    &progress);
      }();
      if (!stats) return stats.error();
      double secs = elapsed();
      if (g.json) {
        PrintJson({{"digest", r.digest.ToString()},
                   {"dir", a->dir},
                   {"files_written", stats->files_written},
                   {"files_skipped", stats->files_skipped},
                   {"bytes_written", stats->bytes_written},
                   {"bytes_skipped", stats->bytes_skipped},
                   {"seconds", secs}});
      } else if (!g.quiet) {
        std::cerr << "pulled " << r.ref.ToString() << " (" << r.digest.Short()
                  << ") into " << a->dir << ": " << stats->files_written
                  << " files written (" << HumanBytes(stats->bytes_written)
                  << "), " << stats->files_skipped << " already identical; all "
                  << "verified\n";
      }
      return Status::Ok();
    });
  });
}

}  // namespace sealvol::cli
