#include <chrono>
#include <iostream>

#include "cli/commands.h"
#include "registry/copy.h"

namespace sealvol::cli {
namespace {

struct CopyArgs {
  std::string src;
  std::string dst;
  bool tags = false;
  unsigned threads = 8;
};

// "[LOCATION::]REF": LOCATION is a URL, a configured remote name or
// "local"; without one, the default target. REF may be empty (DST only).
struct Location {
  bool explicit_location = false;
  std::optional<RemoteConfig> remote;
  std::string ref;
};

Result<Location> ParseLocation(const Globals& g, const std::string& text) {
  Location loc;
  size_t sep = text.rfind("::");
  std::string where;
  if (sep == std::string::npos) {
    loc.ref = text;
    SV_ASSIGN_OR_RETURN(loc.remote, ResolveRemote(g.remote));
  } else {
    loc.explicit_location = true;
    where = text.substr(0, sep);
    loc.ref = text.substr(sep + 2);
    SV_ASSIGN_OR_RETURN(loc.remote, LookupRemote(where));
  }
  return loc;
}

// True when `text` (a volume[:tag]) names a tag explicitly.
bool HasTag(const std::string& text) {
  size_t slash = text.rfind('/');
  return text.find(':', slash == std::string::npos ? 0 : slash) !=
         std::string::npos;
}

Status DoCopy(const Globals& g, const CopyArgs& a) {
  SV_ASSIGN_OR_RETURN(Location sl, ParseLocation(g, a.src));
  SV_ASSIGN_OR_RETURN(Location dl, ParseLocation(g, a.dst));
  SV_ASSIGN_OR_RETURN(Ref src_ref, ParseRef(sl.ref));
  Ref dst_ref;
  if (dl.ref.empty()) {
    dst_ref.volume = src_ref.volume;
    dst_ref.tag = src_ref.tag;
  } else {
    SV_ASSIGN_OR_RETURN(dst_ref, ParseTagRef(dl.ref));
    if (!HasTag(dl.ref)) dst_ref.tag = src_ref.tag;
  }
  SV_ASSIGN_OR_RETURN(auto src,
                      Target::OpenAt(g, sl.remote, EmbeddedStore::Lock::kNone));
  SV_ASSIGN_OR_RETURN(
      auto dst, Target::OpenAt(g, dl.remote, EmbeddedStore::Lock::kShared));
  if (src->where() == dst->where() && src_ref.volume == dst_ref.volume &&
      dst_ref.tag == src_ref.tag) {
    return InvalidArgument("source and destination are the same: " +
                           src->where() + " " + src_ref.volume);
  }
  SV_ASSIGN_OR_RETURN(Digest digest, src->repo().Resolve(src_ref));

  CopyProgress progress;
  auto start = std::chrono::steady_clock::now();
  Result<CopyResult> copied = [&] {
    ProgressLine line(g, [&] {
      return "copying " + std::to_string(progress.blobs_copied.load()) + "/" +
             std::to_string(progress.blobs_missing.load()) +
             " missing blobs of " + std::to_string(progress.blobs_total) +
             ", " + HumanBytes(progress.bytes_copied);
    });
    return CopyVersion(src->repo(), src_ref.volume, digest, dst->repo(),
                       dst_ref.volume, a.threads, &progress);
  }();
  if (!copied) return copied.error();

  std::vector<std::string> tags;
  if (!dst_ref.tag.empty()) tags.push_back(dst_ref.tag);
  if (a.tags) {
    SV_ASSIGN_OR_RETURN(auto all, src->repo().ListTags(src_ref.volume));
    for (const auto& t : all) {
      if (t.digest == digest && t.tag != dst_ref.tag) tags.push_back(t.tag);
    }
  }
  for (const auto& t : tags) {
    SV_RETURN_IF_ERROR(dst->repo().MoveTag(dst_ref.volume, t, digest,
                                           TagExpect::Any(), CurrentUser(),
                                           "copy from " + src->where()));
  }
  double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (g.json) {
    PrintJson({{"digest", digest.ToString()},
               {"from", src->where()},
               {"to", dst->where()},
               {"volume", dst_ref.volume},
               {"tags", tags},
               {"blobs", copied->blobs_total},
               {"blobs_copied", copied->blobs_copied},
               {"bytes_copied", copied->bytes_copied},
               {"seconds", secs}});
    return Status::Ok();
  }
  if (!g.quiet) {
    std::cerr << "copied " << src_ref.ToString() << " (" << digest.Short()
              << ") from " << src->where() << " to " << dst->where() << " as "
              << dst_ref.volume << "; " << copied->blobs_copied << " of "
              << copied->blobs_total << " blobs transferred ("
              << HumanBytes(copied->bytes_copied) << ")";
    for (const auto& t : tags) std::cerr << ", tag " << t;
    std::cerr << "\n";
  }
  std::cout << digest.ToString() << "\n";
  return Status::Ok();
}

}  // namespace

void RegisterCopy(CLI::App& app, Globals& g) {
  auto a = std::make_shared<CopyArgs>();
  auto* cmd = app.add_subcommand(
      "copy",
      "Copy a version between stores (embedded or remote), transferring only "
      "the blobs the destination lacks. SRC and DST are [LOCATION::]REF, "
      "where LOCATION is a registry URL, a configured remote name, or "
      "'local'; e.g. sealvol copy local::acme/m:v1 http://reg:5000::");
  cmd->add_option("SRC", a->src, "[LOCATION::]VOLUME[:TAG|@DIGEST]")
      ->required();
  cmd->add_option("DST", a->dst,
                  "[LOCATION::][VOLUME[:TAG]] (default: the source's volume "
                  "and tag)")
      ->required();
  cmd->add_flag("--tags", a->tags,
                "Also set every source tag that points at this version");
  cmd->add_option("--threads", a->threads, "Blobs transferred at once")
      ->capture_default_str();
  cmd->add_flag("--json", g.json, "Print a JSON summary");
  cmd->callback([&g, a] { RunNoStore([&] { return DoCopy(g, *a); }); });
}

}  // namespace sealvol::cli
