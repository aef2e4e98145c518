#include <iostream>

#include "cli/commands.h"
#include "pull/puller.h"

namespace sealvol::cli {

void RegisterVerify(CLI::App& app, Globals& g) {
  auto ref = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand(
      "verify",
      "Re-read and re-hash every blob of a version; report each missing or "
      "corrupt one by file and chunk. Exit code 4 when any is bad.");
  cmd->add_option("REF", *ref, "VOLUME[:TAG] or VOLUME@DIGEST")->required();
  cmd->add_flag("--json", g.json, "Print a JSON report");
  cmd->callback([&g, ref] {
    RunTarget(g, EmbeddedStore::Lock::kNone, [&](Target& st) -> Status {
      SV_ASSIGN_OR_RETURN(Resolved r, ResolveRef(st.repo(), *ref));
      SV_ASSIGN_OR_RETURN(BlobStore * blobs, st.repo().Blobs(r.ref.volume));
      SV_ASSIGN_OR_RETURN(VerifyReport rep, Verify(*blobs, r.manifest));
      if (g.json) {
        nlohmann::json problems = nlohmann::json::array();
        for (const auto& p : rep.problems) {
          problems.push_back({{"path", p.path},
                              {"chunk", p.chunk},
                              {"offset", p.offset},
                              {"blob", p.digest},
                              {"error", p.what}});
        }
        PrintJson({{"digest", r.digest.ToString()},
                   {"ok", rep.problems.empty()},
                   {"files", rep.files},
                   {"chunks", rep.chunks},
                   {"bytes", rep.bytes},
                   {"problems", std::move(problems)}});
      } else {
        for (const auto& p : rep.problems) {
          std::cout << "BAD " << p.path;
          if (p.chunk >= 0) {
            std::cout << " chunk " << p.chunk << " at offset " << p.offset;
          }
          std::cout << " (" << p.digest << "): " << p.what << "\n";
        }
        std::cout << r.digest.ToString() << ": " << rep.files << " files, "
                  << rep.chunks << " chunks, " << HumanBytes(rep.bytes)
                  << (rep.problems.empty()
                          ? " - all verified\n"
                          : " - " + std::to_string(rep.problems.size()) +
                                " problems\n");
      }
      if (!rep.problems.empty()) {
        return Corruption(r.ref.ToString() + " failed verification: " +
                          std::to_string(rep.problems.size()) +
                          " missing or corrupt blobs");
      }
      return Status::Ok();
    });
  });
}

}  // namespace sealvol::cli
