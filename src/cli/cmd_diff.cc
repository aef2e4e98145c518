#include <cstdio>
#include <unordered_set>

#include "cli/commands.h"
#include "store/blob_reader.h"

namespace sealvol::cli {
namespace {

using ChunkSet = std::unordered_set<Digest, DigestHash>;

Status AddChunks(BlobStore& store, const Manifest& m, ChunkSet* set) {
  for (const auto& e : m.entries) {
    if (e.type != EntryType::kFile) continue;
    SV_ASSIGN_OR_RETURN(auto chunks, FileChunks(store, e));
    for (const auto& c : chunks) set->insert(c.digest);
  }
  return Status::Ok();
}

}  // namespace

void RegisterDiff(CLI::App& app, Globals& g) {
  auto a = std::make_shared<std::string>();
  auto b = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand(
      "diff",
      "Compare two versions: files added, removed and changed, and how many "
      "chunk bytes the second adds over the first.");
  cmd->add_option("REF_A", *a, "Old version")->required();
  cmd->add_option("REF_B", *b, "New version")->required();
  cmd->add_flag("--json", g.json, "Print JSON");
  cmd->callback([&g, a, b] {
    RunTarget(g, EmbeddedStore::Lock::kNone, [&](Target& st) -> Status {
      SV_ASSIGN_OR_RETURN(Resolved ra, ResolveRef(st.repo(), *a));
      SV_ASSIGN_OR_RETURN(Resolved rb, ResolveRef(st.repo(), *b));
      std::vector<std::string> added, removed, changed;
      for (const auto& e : rb.manifest.entries) {
        const ManifestEntry* old = ra.manifest.Find(e.path);
        if (old == nullptr)
          added.push_back(e.path);
        else if (!(*old == e))
          changed.push_back(e.path);
      }
      for (const auto& e : ra.manifest.entries) {
        if (rb.manifest.Find(e.path) == nullptr) removed.push_back(e.path);
      }
      ChunkSet have;
      SV_ASSIGN_OR_RETURN(BlobStore * blobs_a, st.repo().Blobs(ra.ref.volume));
      SV_ASSIGN_OR_RETURN(BlobStore * blobs_b, st.repo().Blobs(rb.ref.volume));
      SV_RETURN_IF_ERROR(AddChunks(*blobs_a, ra.manifest, &have));
      uint64_t new_bytes = 0;
      for (const auto& e : rb.manifest.entries) {
        if (e.type != EntryType::kFile) continue;
        SV_ASSIGN_OR_RETURN(auto chunks, FileChunks(*blobs_b, e));
        for (const auto& c : chunks) {
          if (have.insert(c.digest).second) new_bytes += c.length;
        }
      }
      if (g.json) {
        PrintJson({{"from", ra.digest.ToString()},
                   {"to", rb.digest.ToString()},
                   {"added", added},
                   {"removed", removed},
                   {"changed", changed},
                   {"new_bytes", new_bytes}});
        return Status::Ok();
      }
      for (const auto& p : added) std::printf("+ %s\n", p.c_str());
      for (const auto& p : removed) std::printf("- %s\n", p.c_str());
      for (const auto& p : changed) std::printf("~ %s\n", p.c_str());
      std::printf(
          "%zu added, %zu removed, %zu changed; %s adds %s of new "
          "chunks\n",
          added.size(), removed.size(), changed.size(),
          rb.digest.Short().c_str(), HumanBytes(new_bytes).c_str());
      return Status::Ok();
    });
  });
}

}  // namespace sealvol::cli
