// sealvol lock and sealvol rollback: the two commands that change what a
// deployment pins. Both record the pin in the registry first (which checks
// the digest is a version of the volume), then rewrite the spec's digest
// lines in place (deploy/spec.h), so comments and order stay.
#include <sys/stat.h>

#include <iostream>

#include "cli/commands.h"
#include "cli/deploy_common.h"
#include "deploy/pin_history.h"

namespace sealvol::cli {
namespace {

using json = nlohmann::json;

struct Change {
  size_t index;
  std::optional<Digest> from;
  Digest to;
  uint64_t added = 0;
};

std::string Actor() { return CurrentUser() + "@" + HostName(); }

Status DoLock(const Globals& g, const DeployArgs& a, bool check) {
  SV_ASSIGN_OR_RETURN(Spec spec, LoadSpec(a.spec));
  std::vector<Change> changes;
  RunTarget(g, EmbeddedStore::Lock::kNone, [&](Target& st) -> Status {
    Repository& repo = st.repo();
    SV_ASSIGN_OR_RETURN(auto pins, repo.ListPins(spec.deployment));
    for (size_t i = 0; i < spec.volumes.size(); ++i) {
      const SpecVolume& v = spec.volumes[i];
      Digest want;
      if (v.ref.digest) {
        want = *v.ref.digest;
      } else {
        auto tag = repo.GetTag(v.ref.volume, v.ref.tag);
        if (!tag) {
          return Status(tag.error().code(), spec.file + ":" +
                                                std::to_string(v.line) + ": " +
                                                tag.error().message());
        }
        want = *tag;
      }
      SV_RETURN_IF_ERROR(CheckVersion(repo, spec, v, want));
      std::optional<Digest> now = v.Pinned();
      if (now != want) {
        Change c{i, now, want, 0};
        SV_ASSIGN_OR_RETURN(c.added, AddedBytes(repo, v.ref.volume, now, want));
        changes.push_back(c);
      }
      if (check) continue;
      bool recorded = false;
      for (const auto& p : pins) {
        recorded |=
            p.path == v.path && p.volume == v.ref.volume && p.digest == want;
      }
      if (!recorded) {
        SV_RETURN_IF_ERROR(repo.SetPin(spec.deployment, v.path, v.ref.volume,
                                       want, Actor(), kPinByLock));
      }
    }
    return Status::Ok();
  });
  if (!check && !changes.empty()) {
    std::vector<PinEdit> edits;
    for (const auto& c : changes) edits.push_back({c.index, c.to});
    SV_ASSIGN_OR_RETURN(std::string text, ApplyPins(spec, edits));
    SV_RETURN_IF_ERROR(WriteSpec(a.spec, text));
  }
  if (g.json) {
    json list = json::array();
    for (const auto& c : changes) {
      const SpecVolume& v = spec.volumes[c.index];
      list.push_back({{"volume", v.ref.volume},
                      {"path", v.path},
                      {"ref", v.ref.ToString()},
                      {"from", c.from ? json(c.from->ToString()) : json()},
                      {"to", c.to.ToString()},
                      {"added_bytes", c.added}});
    }
    PrintJson({{"deployment", spec.deployment},
               {"spec", a.spec},
               {"changes", list},
               {"written", !check && !changes.empty()}});
  } else {
    for (const auto& c : changes) {
      const SpecVolume& v = spec.volumes[c.index];
      std::cout << Label(v) << ": "
                << (c.from ? c.from->Short() : std::string("(unpinned)"))
                << " -> " << c.to.Short() << "  (" << v.ref.ToString()
                << "; adds " << HumanBytes(c.added) << ")\n";
    }
    if (!g.quiet) {
      std::cerr << (changes.empty() ? a.spec + " is locked; nothing changes"
                    : check         ? a.spec + " is not locked: " +
                                  std::to_string(changes.size()) +
                                  " volume(s) would change"
                            : "locked " + a.spec + ": " +
                                  std::to_string(changes.size()) +
                                  " volume(s) changed; run `sealvol up` to "
                                  "deploy")
                << "\n";
    }
  }
  if (check && !changes.empty()) {
    return FailedPrecondition(a.spec + " is not locked (sealvol lock)");
  }
  return Status::Ok();
}

// The spec volume VOLUME names (a volume name or a path); the only one when
// none is named.
Result<size_t> PickVolume(const Spec& spec, const std::string& which) {
  // A relative path is taken from the spec's directory, as in the spec.
  std::string path =
      which.empty() || which[0] == '/' ? which : spec.base_dir + "/" + which;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  std::vector<size_t> hits;
  for (size_t i = 0; i < spec.volumes.size(); ++i) {
    const SpecVolume& v = spec.volumes[i];
    if (which.empty() || v.ref.volume == which || v.path == path) {
      hits.push_back(i);
    }
  }
  if (hits.size() == 1) return hits[0];
  std::string names;
  for (const auto& v : spec.volumes) names += "\n  " + Label(v);
  if (hits.empty()) {
    return NotFound(spec.file + " has no volume '" + which +
                    "'; it has:" + names);
  }
  return InvalidArgument(
      "name the volume to roll back (a volume name or a "
      "path); " +
      spec.file + " has:" + names);
}

Status DoRollback(const Globals& g, const DeployArgs& a,
                  const std::string& which, const std::string& to_text) {
  SV_ASSIGN_OR_RETURN(Spec spec, LoadSpec(a.spec));
  SV_ASSIGN_OR_RETURN(size_t index, PickVolume(spec, which));
  const SpecVolume& v = spec.volumes[index];
  std::optional<Digest> to;
  if (!to_text.empty()) {
    SV_ASSIGN_OR_RETURN(to, Digest::Parse(to_text));
  }
  std::optional<Digest> from = v.Pinned();
  RunTarget(g, EmbeddedStore::Lock::kNone, [&](Target& st) -> Status {
    Repository& repo = st.repo();
    if (!to) {
      SV_ASSIGN_OR_RETURN(auto history, repo.PinHistory(spec.deployment));
      to = PreviousPin(history, v.path, v.ref.volume, from);
      if (!to) {
        return NotFound("no earlier pin of " + Label(v) + " in " +
                        spec.deployment +
                        "'s history; give one with --to DIGEST");
      }
    }
    SV_RETURN_IF_ERROR(CheckVersion(repo, spec, v, *to));
    return repo.SetPin(spec.deployment, v.path, v.ref.volume, *to, Actor(),
                       kPinByRollback);
  });
  if (*to != from) {
    SV_ASSIGN_OR_RETURN(std::string text, ApplyPins(spec, {{index, *to}}));
    SV_RETURN_IF_ERROR(WriteSpec(a.spec, text));
  }
  if (g.json) {
    PrintJson({{"deployment", spec.deployment},
               {"volume", v.ref.volume},
               {"path", v.path},
               {"from", from ? json(from->ToString()) : json()},
               {"to", to->ToString()}});
  } else {
    std::cout << Label(v) << ": "
              << (from ? from->Short() : std::string("(unpinned)")) << " -> "
              << to->Short() << "\n";
    if (!g.quiet) {
      std::cerr << "rolled back " << v.ref.volume << " in " << a.spec << " to "
                << to->ToString() << "; run `sealvol up` to redeploy\n";
    }
  }
  return Status::Ok();
}

}  // namespace

void RegisterLock(CLI::App& app, Globals& g) {
  auto a = std::make_shared<DeployArgs>();
  auto check = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand(
      "lock",
      "Resolve every tag in a deployment spec to the digest it points at now, "
      "write the digests into the spec (comments and order kept), record the "
      "pins in the registry, and print what changed and how many bytes each "
      "new version adds.");
  AddSpecArg(cmd, a.get());
  cmd->add_flag("--check", *check,
                "Change nothing; exit 5 when locking would change the spec "
                "(for CI)");
  cmd->add_flag("--json", g.json, "Print the changes as JSON");
  cmd->callback(
      [&g, a, check] { RunNoStore([&] { return DoLock(g, *a, *check); }); });
}

void RegisterRollback(CLI::App& app, Globals& g) {
  auto a = std::make_shared<DeployArgs>();
  auto pos = std::make_shared<std::vector<std::string>>();
  auto to = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand(
      "rollback",
      "Point a volume of a deployment spec back at the digest it was pinned "
      "to before (again to walk further back), or at --to DIGEST; records "
      "the pin and rewrites the spec. Then `sealvol up` redeploys.");
  cmd->add_option("SPEC VOLUME", *pos,
                  "[SPEC] [VOLUME]: the spec (default ./sealvol.yaml) and "
                  "the volume name or mount path to roll back (needed when "
                  "the spec has more than one). One argument is the spec "
                  "when it names a file or ends in .yaml/.yml")
      ->expected(0, 2);
  cmd->add_option("--to", *to,
                  "Roll back to this digest (a version of the "
                  "volume)");
  cmd->add_flag("--json", g.json, "Print what changed as JSON");
  cmd->callback([&g, a, pos, to] {
    std::string which;
    if (pos->size() == 2) {
      a->spec = (*pos)[0];
      which = (*pos)[1];
    } else if (pos->size() == 1) {
      const std::string& arg = (*pos)[0];
      auto ends = [&](const std::string& s) {
        return arg.size() >= s.size() &&
               arg.compare(arg.size() - s.size(), s.size(), s) == 0;
      };
      struct stat st;
      bool file = stat(arg.c_str(), &st) == 0 && S_ISREG(st.st_mode);
      (file || ends(".yaml") || ends(".yml") ? a->spec : which) = arg;
    }
    RunNoStore([&] { return DoRollback(g, *a, which, *to); });
  });
}

}  // namespace sealvol::cli
