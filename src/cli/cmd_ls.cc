#include <cstdio>
#include <iostream>

#include "cli/commands.h"

namespace sealvol::cli {
namespace {

nlohmann::json EntryJson(const ManifestEntry& e) {
  nlohmann::json j{{"path", e.path}};
  switch (e.type) {
    case EntryType::kFile:
      j["type"] = "file";
      j["mode"] = e.executable ? "755" : "644";
      j["size"] = e.size;
      j["sha256"] = e.sha256.Hex();
      break;
    case EntryType::kSymlink:
      j["type"] = "symlink";
      j["target"] = e.target;
      break;
    case EntryType::kDir:
      j["type"] = "dir";
      break;
  }
  return j;
}

}  // namespace

void RegisterLs(CLI::App& app, Globals& g) {
  auto ref = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand(
      "ls", "List a version's files: mode, size, sha256 and path.");
  cmd->add_option("REF", *ref, "VOLUME[:TAG] or VOLUME@DIGEST")->required();
  cmd->add_flag("--json", g.json, "Print JSON");
  cmd->callback([&g, ref] {
    RunTarget(g, EmbeddedStore::Lock::kNone, [&](Target& st) -> Status {
      SV_ASSIGN_OR_RETURN(Resolved r, ResolveRef(st.repo(), *ref));
      if (g.json) {
        nlohmann::json entries = nlohmann::json::array();
        for (const auto& e : r.manifest.entries)
          entries.push_back(EntryJson(e));
        PrintJson({{"digest", r.digest.ToString()},
                   {"files", r.manifest.FileCount()},
                   {"bytes", r.manifest.TotalBytes()},
                   {"entries", std::move(entries)}});
        return Status::Ok();
      }
      for (const auto& e : r.manifest.entries) {
        if (e.type == EntryType::kFile) {
          std::printf("%s %12llu  %s  %s\n", e.executable ? "755" : "644",
                      static_cast<unsigned long long>(e.size),
                      e.sha256.Hex().c_str(), e.path.c_str());
        } else if (e.type == EntryType::kSymlink) {
          std::printf("lnk %12s  %-64s  %s -> %s\n", "", "", e.path.c_str(),
                      e.target.c_str());
        } else {
          std::printf("dir %12s  %-64s  %s/\n", "", "", e.path.c_str());
        }
      }
      return Status::Ok();
    });
  });
}

}  // namespace sealvol::cli
