#include <cstdio>

#include "cli/commands.h"

namespace sealvol::cli {

void RegisterVersions(CLI::App& app, Globals& g) {
  auto volume = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand(
      "versions",
      "List a volume's versions, oldest first, with their tags and the "
      "deployments that pin them.");
  cmd->add_option("VOLUME", *volume, "Volume name")->required();
  cmd->add_flag("--json", g.json, "Print JSON");
  cmd->callback([&g, volume] {
    RunTarget(g, EmbeddedStore::Lock::kNone, [&](Target& st) -> Status {
      SV_RETURN_IF_ERROR(ValidateVolumeName(*volume));
      auto& meta = st.repo();
      SV_ASSIGN_OR_RETURN(auto versions, meta.ListVersions(*volume));
      SV_ASSIGN_OR_RETURN(auto tags, meta.ListTags(*volume));
      SV_ASSIGN_OR_RETURN(auto pins, meta.PinsOfVolume(*volume));
      auto pinned_by = [&](const Digest& d) {
        std::vector<std::string> out;
        for (const auto& p : pins) {
          std::string name = p.deployment + ":" + p.path;
          if (p.digest == d) out.push_back(name);
        }
        return out;
      };
      auto tags_of = [&](const Digest& d) {
        std::vector<std::string> out;
        for (const auto& t : tags) {
          if (t.digest == d) out.push_back(t.tag);
        }
        return out;
      };
      if (g.json) {
        nlohmann::json list = nlohmann::json::array();
        for (const auto& v : versions) {
          list.push_back({{"digest", v.digest.ToString()},
                          {"created", FormatTime(v.created)},
                          {"files", v.files},
                          {"bytes", v.bytes},
                          {"tags", tags_of(v.digest)},
                          {"pinned_by", pinned_by(v.digest)},
                          {"annotations", nlohmann::json::parse(
                                              v.annotations, nullptr, false)}});
        }
        PrintJson({{"volume", *volume}, {"versions", std::move(list)}});
        return Status::Ok();
      }
      for (const auto& v : versions) {
        std::string t;
        for (const auto& name : tags_of(v.digest))
          t += (t.empty() ? "" : ",") + name;
        std::string p;
        for (const auto& name : pinned_by(v.digest))
          p += (p.empty() ? "  pinned by " : ",") + name;
        std::printf("%s  %s  %6llu files  %10s  %s%s\n",
                    v.digest.ToString().c_str(), FormatTime(v.created).c_str(),
                    static_cast<unsigned long long>(v.files),
                    HumanBytes(v.bytes).c_str(), t.c_str(), p.c_str());
      }
      return Status::Ok();
    });
  });
}

}  // namespace sealvol::cli
