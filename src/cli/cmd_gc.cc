#include <ctime>
#include <iostream>

#include "cli/backends.h"
#include "cli/commands.h"

namespace sealvol::cli {

void RegisterGc(CLI::App& app, Globals& g) {
  struct Args {
    bool dry_run = false;
    int64_t grace = 3600;
    BackendFlags backends;
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
  AddBackendOptions(cmd, &a->backends);
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
    // A registry on a bucket and/or PostgreSQL: replicas and publishes go
    // on while gc runs, protected by the grace period; one collector at a
    // time (MetaStore::LockGc). The embedded store alone: gc waits for
    // local publishes to finish (the store's exclusive lock).
    bool shared = !a->backends.blobs.empty() || !a->backends.meta.empty();
    auto lock =
        shared ? EmbeddedStore::Lock::kShared : EmbeddedStore::Lock::kExclusive;
    Run(g, lock, [&](EmbeddedStore& st) -> Status {
      SV_ASSIGN_OR_RETURN(auto backends, Backends::Open(a->backends, st));
      int64_t now = ::time(nullptr);
      SV_ASSIGN_OR_RETURN(GcStats s, backends->registry().CollectGarbage(
                                         a->grace, a->dry_run, now));
      uint64_t temps = 0;
      if (!a->dry_run && backends->s3() == nullptr) {
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
