#include <iostream>

#include "cli/commands.h"

namespace sealvol::cli {

void RegisterVolumes(CLI::App& app, Globals& g) {
  auto* cmd = app.add_subcommand("volumes", "List the store's volumes.");
  cmd->add_flag("--json", g.json, "Print JSON");
  cmd->callback([&g] {
    RunTarget(g, EmbeddedStore::Lock::kNone, [&](Target& st) -> Status {
      SV_ASSIGN_OR_RETURN(auto volumes, st.repo().ListVolumes());
      if (g.json) {
        PrintJson({{"volumes", volumes}});
      } else {
        for (const auto& v : volumes) std::cout << v << "\n";
      }
      return Status::Ok();
    });
  });
}

}  // namespace sealvol::cli
