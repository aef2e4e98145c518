#include "registry/copy.h"

#include <mutex>
#include <nlohmann/json.hpp>
#include <unordered_set>

#include "base/thread_pool.h"
#include "hash/sha256.h"
#include "store/blob_reader.h"

namespace sealvol {

Result<CopyResult> CopyVersion(Repository& src, const std::string& src_volume,
                               const Digest& digest, Repository& dst,
                               const std::string& dst_volume, unsigned threads,
                               CopyProgress* progress) {
  CopyProgress local;
  if (progress == nullptr) progress = &local;
  SV_RETURN_IF_ERROR(ValidateVolumeName(dst_volume));
  SV_ASSIGN_OR_RETURN(VersionRecord rec, src.GetVersion(src_volume, digest));
  SV_ASSIGN_OR_RETURN(Manifest m, src.LoadManifest(src_volume, digest));
  SV_ASSIGN_OR_RETURN(std::string manifest_bytes, SerializeManifest(m));
  if (Sha256::Of(manifest_bytes) != digest) {
    return Corruption("manifest of " + src_volume + "@" + digest.ToString() +
                      " does not reproduce its digest");
  }
  SV_ASSIGN_OR_RETURN(BlobStore * from, src.Blobs(src_volume));
  SV_ASSIGN_OR_RETURN(BlobStore * to, dst.Blobs(dst_volume));

  // Every blob the version names (chunk indexes are read, verified, from
  // the source to learn the chunks).
  std::vector<Digest> all;
  std::unordered_set<Digest, DigestHash> seen;
  auto add = [&](const Digest& d) {
    if (seen.insert(d).second) all.push_back(d);
  };
  for (const auto& e : m.entries) {
    if (e.type != EntryType::kFile || e.size == 0) continue;
    if (e.chunks) add(*e.chunks);
    SV_ASSIGN_OR_RETURN(auto chunks, FileChunks(*from, e));
    for (const auto& c : chunks) add(c.digest);
  }
  progress->blobs_total = all.size();
  SV_ASSIGN_OR_RETURN(std::vector<Digest> missing, to->Missing(all));
  progress->blobs_missing = missing.size();

  std::mutex mu;
  Status first_error;
  {
    ThreadPool pool(threads == 0 ? 8 : threads);
    for (const Digest& d : missing) {
      pool.Submit([&, d] {
        {
          std::lock_guard<std::mutex> lock(mu);
          if (!first_error.ok()) return;
        }
        Status s = [&]() -> Status {
          SV_ASSIGN_OR_RETURN(std::string env, from->Get(d));
          // Verified before the destination ever sees it.
          SV_RETURN_IF_ERROR(
              DecodeVerified(env, d, kUnknownSize, kMaxManifestBytes)
                  .status()
                  .WithContext("blob " + d.ToString() + " in the source"));
          SV_RETURN_IF_ERROR(to->Put(d, env).status());
          progress->bytes_copied += env.size();
          ++progress->blobs_copied;
          return Status::Ok();
        }();
        if (!s.ok()) {
          std::lock_guard<std::mutex> lock(mu);
          if (first_error.ok()) first_error = s;
        }
      });
    }
    pool.Wait();
  }
  SV_RETURN_IF_ERROR(first_error);
  SV_RETURN_IF_ERROR(to->Sync());

  nlohmann::json ann = nlohmann::json::parse(rec.annotations, nullptr, false);
  if (ann.is_discarded() || !ann.is_object()) ann = nlohmann::json::object();
  ann["copied_from"] = src_volume + "@" + digest.ToString();
  SV_ASSIGN_OR_RETURN(Digest committed,
                      dst.CommitVersion(dst_volume, manifest_bytes, ann.dump(),
                                        CompressPolicy::kAuto));
  return CopyResult{committed, all.size(), progress->blobs_copied,
                    progress->bytes_copied};
}

}  // namespace sealvol
