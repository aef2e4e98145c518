#include <cstdio>

#include "cli/commands.h"

namespace sealvol::cli {

void RegisterTags(CLI::App& app, Globals& g) {
  auto volume = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("tags", "List a volume's tags.");
  cmd->add_option("VOLUME", *volume, "Volume name")->required();
  cmd->add_flag("--json", g.json, "Print JSON");
  cmd->callback([&g, volume] {
    RunTarget(g, EmbeddedStore::Lock::kNone, [&](Target& st) -> Status {
      SV_RETURN_IF_ERROR(ValidateVolumeName(*volume));
      // Distinguish "no such volume" from "no tags".
      SV_RETURN_IF_ERROR(st.repo().ListVersions(*volume).status());
      SV_ASSIGN_OR_RETURN(auto tags, st.repo().ListTags(*volume));
      if (g.json) {
        nlohmann::json list = nlohmann::json::array();
        for (const auto& t : tags) {
          list.push_back({{"tag", t.tag},
                          {"digest", t.digest.ToString()},
                          {"updated", FormatTime(t.updated)}});
        }
        PrintJson({{"volume", *volume}, {"tags", std::move(list)}});
        return Status::Ok();
      }
      for (const auto& t : tags) {
        std::printf("%-20s %s  %s\n", t.tag.c_str(),
                    t.digest.ToString().c_str(), FormatTime(t.updated).c_str());
      }
      return Status::Ok();
    });
  });
}

}  // namespace sealvol::cli
