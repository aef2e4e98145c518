#include <ctime>
#include <iostream>

#include "cli/commands.h"

namespace sealvol::cli {

void RegisterGc(CLI::App& app, Globals& g) {
  struct Args {
    bool dry_run = false;
    int64_t grace = 3600;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "gc",
      "Remove blobs no version references. Blobs written or reused within "
      "the grace period are kept, and gc waits for publishes in progress.");
  cmd->add_flag("--dry-run", a->dry_run, "Report what would be removed");
  cmd->add_option("--grace", a->grace, "Grace period in seconds")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--json", g.json, "Print JSON");
  cmd->callback([&g, a] {
    RunNoStore([&]() -> Status {
      SV_ASSIGN_OR_RETURN(auto remote, ResolveRemote(g.remote));
      if (!remote) return Status::Ok();
      return InvalidArgument(
          "gc works on the store itself: run `sealvol gc --remote local "
          "--store DIR` on the host that serves " +
          remote->url);
    });
    Run(g, EmbeddedStore::Lock::kExclusive, [&](EmbeddedStore& st) -> Status {
      int64_t now = ::time(nullptr);
      SV_ASSIGN_OR_RETURN(
          GcStats s, st.registry().CollectGarbage(a->grace, a->dry_run, now));
      uint64_t temps = 0;
      if (!a->dry_run) {
        SV_ASSIGN_OR_RETURN(temps, st.blobs().CollectTemp(a->grace));
      }
      if (g.json) {
        PrintJson({{"dry_run", a->dry_run},
                   {"versions", s.versions},
                   {"live_blobs", s.live_blobs},
                   {"removed_blobs", s.removed},
                   {"removed_bytes", s.removed_bytes},
                   {"kept_young_blobs", s.young},
                   {"removed_temp_files", temps}});
        return Status::Ok();
      }
      std::cout << (a->dry_run ? "would remove " : "removed ") << s.removed
                << " blobs (" << HumanBytes(s.removed_bytes) << "); kept "
                << s.live_blobs << " live blobs of " << s.versions
                << " versions and " << s.young
                << " unreferenced blobs younger than " << a->grace << "s\n";
      return Status::Ok();
    });
  });
}

}  // namespace sealvol::cli
