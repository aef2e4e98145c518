#include <unistd.h>

#include "base/file.h"
#include "cli/commands.h"
#include "pull/puller.h"

namespace sealvol::cli {

void RegisterCat(CLI::App& app, Globals& g) {
  auto ref = std::make_shared<std::string>();
  auto path = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand(
      "cat", "Write one file of a version to stdout, verified chunk by chunk.");
  cmd->add_option("REF", *ref, "VOLUME[:TAG] or VOLUME@DIGEST")->required();
  cmd->add_option("PATH", *path, "Path inside the version")->required();
  cmd->callback([&g, ref, path] {
    RunTarget(g, EmbeddedStore::Lock::kNone, [&](Target& st) -> Status {
      SV_ASSIGN_OR_RETURN(Resolved r, ResolveRef(st.repo(), *ref));
      const ManifestEntry* e = r.manifest.Find(*path);
      if (e == nullptr) {
        return NotFound("no '" + *path + "' in " + r.ref.ToString());
      }
      if (e->type != EntryType::kFile) {
        return InvalidArgument("'" + *path + "' is not a file");
      }
      SV_ASSIGN_OR_RETURN(BlobStore * blobs, st.repo().Blobs(r.ref.volume));
      return CatFile(*blobs, *e, [](std::string_view data) {
        return WriteAll(STDOUT_FILENO, data, "stdout");
      });
    });
  });
}

}  // namespace sealvol::cli
