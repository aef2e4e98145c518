// sealvol status: per volume of a deployment spec, the pinned digest, what
// its tag points at now (drift), what the registry records as pinned, what
// this node mounts at the path, and how much of the version the node cache
// holds.
#include <sys/stat.h>

#include <iostream>

#include "cli/commands.h"
#include "cli/deploy_common.h"
#include "mount/node_cache.h"
#include "store/blob_reader.h"

namespace sealvol::cli {
namespace {

using json = nlohmann::json;

json OptJson(const std::optional<Digest>& d) {
  return d ? json(d->ToString()) : json();
}

// The bytes of `digest`'s chunks in the node cache at `cache_dir`, and its
// total (one chunk counted once).
Status CacheFill(Repository& repo, const std::string& volume,
                 const Digest& digest, const std::string& cache_dir,
                 uint64_t* cached, uint64_t* total) {
  SV_ASSIGN_OR_RETURN(BlobStore * blobs, repo.Blobs(volume));
  SV_ASSIGN_OR_RETURN(Manifest m, repo.LoadManifest(volume, digest));
  SV_ASSIGN_OR_RETURN(auto chunks, VersionChunks(*blobs, m, {}));
  for (const auto& [digest, length] : chunks) {
    *total += length;
    struct stat st;
    std::string p = NodeCache::ChunkPath(cache_dir, digest);
    if (stat(p.c_str(), &st) == 0) *cached += length;
  }
  return Status::Ok();
}

Status DoStatus(const Globals& g, const DeployArgs& a) {
  SV_ASSIGN_OR_RETURN(Spec spec, LoadSpec(a.spec));
  std::string dep_dir = DeploymentDir(a.StateDir(), spec.deployment);
  json rows = json::array();
  bool any_drift = false;
  RunTarget(g, EmbeddedStore::Lock::kNone, [&](Target& st) -> Status {
    Repository& repo = st.repo();
    SV_ASSIGN_OR_RETURN(auto pins, repo.ListPins(spec.deployment));
    for (const auto& v : spec.volumes) {
      json row = {{"volume", v.ref.volume},
                  {"path", v.path},
                  {"ref", v.ref.ToString()},
                  {"pinned", OptJson(v.Pinned())}};
      std::optional<Digest> tag_now;
      if (!v.ref.digest) {
        auto t = repo.GetTag(v.ref.volume, v.ref.tag);
        if (t) tag_now = *t;
        row["tag"] = v.ref.tag;
        row["tag_now"] = OptJson(tag_now);
      }
      bool drift = tag_now && tag_now != v.Pinned();
      any_drift |= drift;
      row["drift"] = drift;
      std::optional<Digest> registry;
      for (const auto& p : pins) {
        if (p.path == v.path && p.volume == v.ref.volume) registry = p.digest;
      }
      row["registry_pin"] = OptJson(registry);
      std::optional<Digest> linked = LinkedDigest(v.path, dep_dir);
      bool live = false;
      if (linked) {
        auto stats = ReadMountStats(MountDirFor(dep_dir, *linked));
        live = stats.has_value() &&
               stats->value("digest", "") == linked->ToString();
      }
      row["mounted"] = live ? OptJson(linked) : json();
      if (auto target = v.Pinned()) {
        uint64_t cached = 0, total = 0;
        SV_RETURN_IF_ERROR(CacheFill(repo, v.ref.volume, *target, a.CacheDir(),
                                     &cached, &total));
        row["cache_bytes"] = cached;
        row["total_bytes"] = total;
      }
      rows.push_back(std::move(row));
    }
    return Status::Ok();
  });
  if (g.json) {
    PrintJson({{"deployment", spec.deployment},
               {"spec", a.spec},
               {"drift", any_drift},
               {"volumes", rows}});
    return Status::Ok();
  }
  std::cout << "deployment " << spec.deployment << " (" << a.spec << ")\n";
  auto shorten = [](const json& d) {
    return d.is_null() ? std::string("-") : d.get<std::string>().substr(7, 12);
  };
  for (const auto& r : rows) {
    std::cout << "  " << r["path"].get<std::string>() << "  "
              << r["ref"].get<std::string>() << "\n"
              << "    pinned   " << shorten(r["pinned"]);
    if (r.contains("tag_now")) {
      std::cout << "   tag " << r["tag"].get<std::string>() << " now "
                << shorten(r["tag_now"])
                << (r["drift"].get<bool>() ? "  DRIFT (sealvol lock)" : "");
    }
    std::cout << "\n    mounted  " << shorten(r["mounted"]);
    if (!r["mounted"].is_null() && r["mounted"] != r["pinned"]) {
      std::cout << "  (not the pin: sealvol up)";
    }
    if (r.contains("total_bytes")) {
      uint64_t c = r["cache_bytes"], t = r["total_bytes"];
      std::cout << "   cache " << HumanBytes(c) << " / " << HumanBytes(t)
                << " (" << (t ? c * 100 / t : 100) << "%)";
    }
    std::cout << "\n    registry " << shorten(r["registry_pin"]) << "\n";
  }
  return Status::Ok();
}

}  // namespace

void RegisterStatus(CLI::App& app, Globals& g) {
  auto a = std::make_shared<DeployArgs>();
  auto* cmd = app.add_subcommand(
      "status",
      "Show, per volume of a deployment spec: the pinned digest, what its "
      "tag points at now (drift when they differ), the pin the registry "
      "records, what this node mounts at the path, and how much of the "
      "pinned version the node cache holds.");
  AddSpecArg(cmd, a.get());
  AddNodeArgs(cmd, a.get());
  cmd->add_flag("--json", g.json, "Print JSON");
  cmd->callback([&g, a] { RunNoStore([&] { return DoStatus(g, *a); }); });
}

}  // namespace sealvol::cli
