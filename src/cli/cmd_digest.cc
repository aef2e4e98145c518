#include <iostream>

#include "cli/commands.h"
#include "publish/publisher.h"

namespace sealvol::cli {

void RegisterDigest(CLI::App& app, Globals& g) {
  auto dir = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand(
      "digest",
      "Print the version digest DIR would publish to, storing nothing. The "
      "same tree gives the same digest on any machine.");
  cmd->add_option("DIR", *dir, "Directory")->required();
  cmd->add_flag("--json", g.json, "Print JSON (digest, files, bytes)");
  cmd->callback([&g, dir] {
    RunNoStore([&]() -> Status {
      Publisher publisher(nullptr, PublishOptions{});
      SV_ASSIGN_OR_RETURN(BuiltVersion v, publisher.Build(*dir));
      if (g.json) {
        PrintJson({{"digest", v.digest.ToString()},
                   {"files", v.files},
                   {"bytes", v.bytes}});
      } else {
        std::cout << v.digest.ToString() << "\n";
      }
      return Status::Ok();
    });
  });
}

}  // namespace sealvol::cli
