// Sync: one source (a bucket prefix, a hub repo, a directory) becomes a
// version of a volume and a tag points at it. Used by `sealvol sync` and by
// the registry's server-side sync jobs.
//
//  1. list the source and keep the paths the filters select;
//  2. when the tag's current version came from the same source, reuse the
//     entries of files whose source identity is unchanged (their bytes are
//     not downloaded), unless `full`;
//  3. stream the rest into the publisher, which checks stated SHA-256s;
//  4. commit with provenance annotations and move the tag.
// Nothing is committed when any step fails; chunks already stored stay, so
// a re-run does not upload them again.
//
// Thread safety: RunSync may run on many threads with different requests.
#ifndef SEALVOL_SOURCES_SYNC_H_
#define SEALVOL_SOURCES_SYNC_H_

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "publish/publisher.h"
#include "registry/repository.h"
#include "sources/s3_source.h"
#include "sources/source_uri.h"

namespace sealvol {

// How to reach sources: flags and where credentials files live.
struct SourceFlags {
  S3Flags s3;
  std::string home;  // where ~/.aws and the like are looked up
};

// Opens the source `spec` names (local directories must exist).
Result<std::unique_ptr<RemoteSource>> OpenSource(const SourceSpec& spec,
                                                 const SourceFlags& flags);

// fnmatch(3) globs without FNM_PATHNAME, so `*.safetensors` also matches in
// subfolders. No include pattern selects everything; excludes win.
bool SelectedByFilters(const std::string& path,
                       const std::vector<std::string>& include,
                       const std::vector<std::string>& exclude);

struct SyncRequest {
  std::string source;  // a URI or a directory
  std::string volume;
  std::string tag = "latest";
  std::vector<std::string> include, exclude;
  bool full = false;  // read every file, ignoring the previous version
  std::string actor;  // recorded in the tag history
  std::string note;
  nlohmann::json annotations = nlohmann::json::object();  // who, where
  SourceFlags flags;
  PublishOptions publish;
};

struct SyncResult {
  Digest digest;
  std::string source_uri;
  std::string revision;
  BuiltVersion built;
  std::optional<Digest> previous;  // the tag's version before
  uint64_t skipped_by_filters = 0;
  bool identities_recorded = false;
};

// Annotation space for per-file identities; beyond it the next sync reads
// every file again (chunks already stored are still not uploaded).
inline constexpr size_t kMaxIdentityBytes = 48 << 10;

// Now, as annotations record times: "2026-12-02T23:17:01Z".
std::string UtcNow();

Result<SyncResult> RunSync(Repository& repo, const SyncRequest& request,
                           PublishProgress* progress = nullptr);

}  // namespace sealvol

#endif  // SEALVOL_SOURCES_SYNC_H_
