#include <iostream>

#include "cli/commands.h"

namespace sealvol::cli {

void RegisterResolve(CLI::App& app, Globals& g) {
  auto ref = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand(
      "resolve",
      "Print the digest a ref (VOLUME[:TAG] or VOLUME@DIGEST) names.");
  cmd->add_option("REF", *ref, "Ref")->required();
  cmd->add_flag("--json", g.json, "Print JSON");
  cmd->callback([&g, ref] {
    RunTarget(g, EmbeddedStore::Lock::kNone, [&](Target& st) -> Status {
      SV_ASSIGN_OR_RETURN(Ref r, ParseRef(*ref));
      SV_ASSIGN_OR_RETURN(Digest d, st.repo().Resolve(r));
      if (g.json) {
        PrintJson({{"ref", r.ToString()}, {"digest", d.ToString()}});
      } else {
        std::cout << d.ToString() << "\n";
      }
      return Status::Ok();
    });
  });
}

}  // namespace sealvol::cli
