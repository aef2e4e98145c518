// sealvol: publish model directories as immutable, content-addressed
// versions; tag them; pull and verify them. See docs/cli.md.
#include <malloc.h>

#include <CLI/CLI.hpp>
#include <cstdlib>

#include "cli/commands.h"

int main(int argc, char** argv) {
  using namespace sealvol::cli;
  // Chunks (up to 4 MiB) and read blocks (8 MiB) are allocated and freed at
  // a high rate. Above glibc's default threshold each would be a fresh
  // mmap, so every page faults in again; keeping them on the heap (and not
  // trimming it) made verify 1.6x faster here (BENCHMARKS.md).
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  CLI::App app(
      "sealvol: immutable, content-addressed versions of model directories.\n"
      "Publish a directory once, name it by its sha256 digest, move tags,\n"
      "pull and verify it anywhere. Docs: docs/cli.md");
  app.set_version_flag("--version", "sealvol 0.1.0");
  app.require_subcommand(1);
  app.fallthrough();
  Globals g;
  app.add_option("--store", g.store_dir,
                 "Store directory (default: $SEALVOL_HOME, else "
                 "~/.local/share/sealvol)");
  app.add_option("--remote", g.remote,
                 "Registry URL or configured remote name ('local': the "
                 "embedded store). Default: $SEALVOL_REMOTE, else the config "
                 "file's remote, else the embedded store");
  app.add_flag("-q,--quiet", g.quiet, "No progress display");

  RegisterPublish(app, g);
  RegisterSync(app, g);
  RegisterSyncJobs(app, g);
  RegisterDigest(app, g);
  RegisterResolve(app, g);
  RegisterLs(app, g);
  RegisterCat(app, g);
  RegisterVersions(app, g);
  RegisterVolumes(app, g);
  RegisterTags(app, g);
  RegisterTag(app, g);
  RegisterUntag(app, g);
  RegisterHistory(app, g);
  RegisterDiff(app, g);
  RegisterPull(app, g);
  RegisterVerify(app, g);
  RegisterGc(app, g);
  RegisterMount(app, g);
  RegisterUmount(app, g);
  RegisterStats(app, g);
  RegisterServe(app, g);
  RegisterCopy(app, g);
  RegisterLock(app, g);
  RegisterUp(app, g);
  RegisterDown(app, g);
  RegisterStatus(app, g);
  RegisterRollback(app, g);

  try {
    app.parse(argc, argv);
  } catch (const CLI::RuntimeError& e) {
    return e.get_exit_code();
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : kExitUsage;
  }
  return kExitOk;
}
