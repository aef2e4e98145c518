#include "sources/sync.h"

#include <fnmatch.h>
#include <stdlib.h>

#include <ctime>

#include "sources/azure_source.h"
#include "sources/gcs_source.h"
#include "sources/hf_source.h"
#include "sources/local_source.h"

namespace sealvol {
namespace {

// What the tag's current version knew, when it was synced from a source
// with the same identity scope.
Result<KnownFiles> PreviousFiles(Repository& repo, const std::string& volume,
                                 const Digest& digest,
                                 const std::string& scope) {
  KnownFiles known;
  SV_ASSIGN_OR_RETURN(VersionRecord rec, repo.GetVersion(volume, digest));
  auto ann = nlohmann::json::parse(rec.annotations, nullptr, false);
  if (!ann.is_object() || !ann.contains("source") ||
      !ann["source"].is_object()) {
    return known;
  }
  const auto& src = ann["source"];
  if (!src.contains("identity_scope") || !src["identity_scope"].is_string() ||
      src["identity_scope"].get<std::string>() != scope ||
      !src.contains("identities") || !src["identities"].is_object()) {
    return known;
  }
  SV_ASSIGN_OR_RETURN(Manifest m, repo.LoadManifest(volume, digest));
  for (const auto& e : m.entries) {
    auto it = src["identities"].find(e.path);
    if (it == src["identities"].end() || !it->is_string()) continue;
    known[e.path] = {it->get<std::string>(), e};
  }
  return known;
}

}  // namespace

std::string UtcNow() {
  time_t t = ::time(nullptr);
  struct tm tm;
  ::gmtime_r(&t, &tm);
  char buf[32];
  ::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

Result<std::unique_ptr<RemoteSource>> OpenSource(const SourceSpec& spec,
                                                 const SourceFlags& flags) {
  switch (spec.kind) {
    case SourceKind::kLocal: {
      char buf[PATH_MAX];
      if (::realpath(spec.path.c_str(), buf) == nullptr) {
        return NotFound("no directory '" + spec.path + "'");
      }
      return std::unique_ptr<RemoteSource>(new LocalDirSource(buf));
    }
    case SourceKind::kS3: {
      SV_ASSIGN_OR_RETURN(S3Options o,
                          S3OptionsFor(spec, flags.s3, flags.home));
      return std::unique_ptr<RemoteSource>(new S3Source(spec, std::move(o)));
    }
    case SourceKind::kHuggingFace: {
      HfOptions o = HfOptionsFromEnvironment(flags.home);
      o.retry_for = flags.s3.retry_for;
      return std::unique_ptr<RemoteSource>(new HfSource(spec, std::move(o)));
    }
    case SourceKind::kAzure: {
      SV_ASSIGN_OR_RETURN(AzureOptions o,
                          AzureOptionsFor(spec, flags.s3.endpoint));
      o.retry_for = flags.s3.retry_for;
      return std::unique_ptr<RemoteSource>(new AzureSource(spec, std::move(o)));
    }
    case SourceKind::kGcs: {
      SV_ASSIGN_OR_RETURN(GcsOptions o,
                          GcsOptionsFor(flags.s3.endpoint, flags.s3.no_sign,
                                        flags.s3.retry_for));
      return std::unique_ptr<RemoteSource>(new GcsSource(spec, std::move(o)));
    }
  }
  return InvalidArgument("unknown source kind");
}

bool SelectedByFilters(const std::string& path,
                       const std::vector<std::string>& include,
                       const std::vector<std::string>& exclude) {
  for (const auto& x : exclude) {
    if (::fnmatch(x.c_str(), path.c_str(), 0) == 0) return false;
  }
  if (include.empty()) return true;
  for (const auto& i : include) {
    if (::fnmatch(i.c_str(), path.c_str(), 0) == 0) return true;
  }
  return false;
}

Result<SyncResult> RunSync(Repository& repo, const SyncRequest& req,
                           PublishProgress* progress) {
  SV_RETURN_IF_ERROR(ValidateVolumeName(req.volume));
  SV_RETURN_IF_ERROR(ValidateTag(req.tag));
  SV_ASSIGN_OR_RETURN(SourceSpec spec, ParseSourceUri(req.source));
  SV_ASSIGN_OR_RETURN(std::unique_ptr<RemoteSource> source,
                      OpenSource(spec, req.flags));
  SyncResult out;
  out.source_uri = source->Uri();
  SV_ASSIGN_OR_RETURN(std::vector<RemoteEntry> listed, source->List());
  out.revision = source->Revision();
  std::vector<RemoteEntry> entries;
  for (auto& e : listed) {
    if (SelectedByFilters(e.path, req.include, req.exclude)) {
      entries.push_back(std::move(e));
    } else {
      ++out.skipped_by_filters;
    }
  }
  if (entries.empty()) {
    return NotFound(listed.empty()
                        ? "nothing is listed under " + out.source_uri
                        : "no file under " + out.source_uri +
                              " matches the --include/--exclude patterns");
  }

  KnownFiles known;
  auto current = repo.GetTag(req.volume, req.tag);
  if (current) {
    out.previous = *current;
    if (!req.full) {
      SV_ASSIGN_OR_RETURN(known, PreviousFiles(repo, req.volume, *current,
                                               source->IdentityScope()));
    }
  } else if (current.error().code() != StatusCode::kNotFound) {
    return current.error();
  }

  SV_ASSIGN_OR_RETURN(BlobStore * blobs, repo.Blobs(req.volume));
  Publisher publisher(blobs, req.publish);
  SV_ASSIGN_OR_RETURN(out.built,
                      publisher.BuildRemote(*source, entries, known, progress));

  nlohmann::json identities = nlohmann::json::object();
  for (const auto& e : entries) {
    if (e.type == EntryType::kFile && !e.identity.empty()) {
      identities[e.path] = e.identity;
    }
  }
  nlohmann::json src = {{"uri", out.source_uri},
                        {"synced_at", UtcNow()},
                        {"files", out.built.files}};
  if (!out.revision.empty()) src["revision"] = out.revision;
  if (!req.include.empty()) src["include"] = req.include;
  if (!req.exclude.empty()) src["exclude"] = req.exclude;
  std::string ids = identities.dump();
  if (ids.size() <= kMaxIdentityBytes) {
    src["identities"] = std::move(identities);
    src["identity_scope"] = source->IdentityScope();
    out.identities_recorded = true;
  } else {
    src["identities_omitted"] = identities.size();
  }
  nlohmann::json ann = req.annotations;
  ann["source"] = std::move(src);
  SV_ASSIGN_OR_RETURN(out.digest,
                      repo.CommitVersion(req.volume, out.built.manifest_bytes,
                                         ann.dump(), req.publish.compress));
  SV_RETURN_IF_ERROR(
      repo.MoveTag(req.volume, req.tag, out.digest, TagExpect::Any(), req.actor,
                   req.note.empty() ? "sync " + out.source_uri : req.note));
  return out;
}

}  // namespace sealvol
