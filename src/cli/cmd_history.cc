#include <cstdio>

#include "cli/commands.h"

namespace sealvol::cli {

void RegisterHistory(CLI::App& app, Globals& g) {
  auto target = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand(
      "history", "Every move of a tag, oldest first: when, who, old -> new.");
  cmd->add_option("VOLUME:TAG", *target, "Tag")->required();
  cmd->add_flag("--json", g.json, "Print JSON");
  cmd->callback([&g, target] {
    RunTarget(g, EmbeddedStore::Lock::kNone, [&](Target& st) -> Status {
      SV_ASSIGN_OR_RETURN(Ref ref, ParseTagRef(*target));
      SV_ASSIGN_OR_RETURN(auto moves,
                          st.repo().TagHistory(ref.volume, ref.tag));
      if (g.json) {
        nlohmann::json list = nlohmann::json::array();
        for (const auto& m : moves) {
          list.push_back({{"from", m.from ? nlohmann::json(m.from->ToString())
                                          : nlohmann::json()},
                          {"to", m.to ? nlohmann::json(m.to->ToString())
                                      : nlohmann::json()},
                          {"at", FormatTime(m.at)},
                          {"actor", m.actor},
                          {"note", m.note}});
        }
        PrintJson({{"ref", ref.ToString()}, {"history", std::move(list)}});
        return Status::Ok();
      }
      for (const auto& m : moves) {
        std::string from = m.from ? m.from->Short() : "(none)";
        std::string to = m.to ? m.to->Short() : "(removed)";
        std::printf("%s  %-12s  %s -> %s  %s\n", FormatTime(m.at).c_str(),
                    m.actor.c_str(), from.c_str(), to.c_str(), m.note.c_str());
      }
      return Status::Ok();
    });
  });
}

}  // namespace sealvol::cli
