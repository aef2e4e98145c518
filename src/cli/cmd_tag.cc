#include <iostream>

#include "cli/commands.h"

namespace sealvol::cli {
namespace {

// --expect takes a digest, or "none" for "the tag must not exist yet".
Result<TagExpect> ParseExpect(const std::string& text) {
  if (text.empty()) return TagExpect::Any();
  if (text == "none") return TagExpect::Absent();
  SV_ASSIGN_OR_RETURN(Digest d, Digest::Parse(text));
  return TagExpect::Is(d);
}

}  // namespace

void RegisterTag(CLI::App& app, Globals& g) {
  struct Args {
    std::string src;
    std::vector<std::string> tags;
    std::string expect;
    std::string note;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "tag",
      "Point one or more tags of a volume at the version SRCREF names. With "
      "--expect the move happens only if the tag is at that digest now "
      "(compare-and-swap); otherwise it fails naming the current value.");
  cmd->add_option("SRCREF", a->src, "VOLUME[:TAG] or VOLUME@DIGEST")
      ->required();
  cmd->add_option("TAG", a->tags, "Tags to move")->required();
  cmd->add_option("--expect", a->expect,
                  "Digest the tag must be at now ('none': must not exist)");
  cmd->add_option("--note", a->note, "Note recorded in the history");
  cmd->add_flag("--json", g.json, "Print JSON");
  cmd->callback([&g, a] {
    RunTarget(g, EmbeddedStore::Lock::kNone, [&](Target& st) -> Status {
      SV_ASSIGN_OR_RETURN(Ref src, ParseRef(a->src));
      SV_ASSIGN_OR_RETURN(Digest d, st.repo().Resolve(src));
      SV_ASSIGN_OR_RETURN(TagExpect expect, ParseExpect(a->expect));
      for (const auto& t : a->tags) SV_RETURN_IF_ERROR(ValidateTag(t));
      // Check every expectation before moving any tag, so a mismatch on one
      // leaves all of them where they were (each move re-checks atomically).
      if (expect.kind != TagExpect::Kind::kAny) {
        for (const auto& t : a->tags) {
          auto cur = st.repo().GetTag(src.volume, t);
          if (!cur && cur.error().code() != StatusCode::kNotFound) {
            return cur.error();
          }
          bool ok = expect.kind == TagExpect::Kind::kAbsent
                        ? !cur.has_value()
                        : cur.has_value() && *cur == expect.digest;
          if (!ok) {
            return FailedPrecondition(
                "tag " + src.volume + ":" + t + " is at " +
                (cur ? cur->ToString() : std::string("(no tag)")) +
                ", not the expected " +
                (expect.kind == TagExpect::Kind::kAbsent
                     ? std::string("(no tag)")
                     : expect.digest.ToString()) +
                "; no tag was moved");
          }
        }
      }
      nlohmann::json moved = nlohmann::json::array();
      for (const auto& t : a->tags) {
        SV_RETURN_IF_ERROR(st.repo().MoveTag(src.volume, t, d, expect,
                                             CurrentUser(), a->note));
        moved.push_back(t);
        if (!g.json) {
          std::cout << src.volume << ":" << t << " -> " << d.ToString() << "\n";
        }
      }
      if (g.json) {
        PrintJson({{"volume", src.volume},
                   {"digest", d.ToString()},
                   {"tags", moved}});
      }
      return Status::Ok();
    });
  });
}

void RegisterUntag(CLI::App& app, Globals& g) {
  struct Args {
    std::string target;
    std::string expect;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "untag", "Remove a tag (its history is kept). Versions are not removed.");
  cmd->add_option("VOLUME:TAG", a->target, "Tag to remove")->required();
  cmd->add_option("--expect", a->expect, "Digest the tag must be at now");
  cmd->callback([&g, a] {
    RunTarget(g, EmbeddedStore::Lock::kNone, [&](Target& st) -> Status {
      SV_ASSIGN_OR_RETURN(Ref ref, ParseTagRef(a->target));
      SV_ASSIGN_OR_RETURN(TagExpect expect, ParseExpect(a->expect));
      return st.repo().MoveTag(ref.volume, ref.tag, std::nullopt, expect,
                               CurrentUser(), "untag");
    });
  });
}

}  // namespace sealvol::cli
