#include "registry/registry.h"

#include <unordered_set>

#include "hash/sha256.h"
#include "store/blob_reader.h"

namespace sealvol {

Result<std::vector<std::string>> Registry::MissingBlobs(
    const Manifest& m, size_t limit, std::vector<Digest>* all) {
  std::vector<std::string> missing;
  auto check = [&](const Digest& d, const std::string& what) -> Status {
    all->push_back(d);
    SV_ASSIGN_OR_RETURN(bool has, blobs_->Has(d));
    if (!has && missing.size() < limit) {
      missing.push_back(d.ToString() + " (" + what + ")");
    }
    return Status::Ok();
  };
  for (const auto& e : m.entries) {
    if (e.type != EntryType::kFile || e.size == 0) continue;
    if (!e.chunks) {
      SV_RETURN_IF_ERROR(check(e.sha256, e.path));
      continue;
    }
    all->push_back(*e.chunks);
    auto chunks = FileChunks(*blobs_, e);
    if (!chunks) {
      if (chunks.error().code() != StatusCode::kNotFound) return chunks.error();
      if (missing.size() < limit) {
        missing.push_back(e.chunks->ToString() + " (chunk index of " + e.path +
                          ")");
      }
      continue;
    }
    uint64_t offset = 0;
    for (const auto& c : *chunks) {
      SV_RETURN_IF_ERROR(
          check(c.digest, e.path + " at offset " + std::to_string(offset)));
      offset += c.length;
    }
  }
  return missing;
}

Result<Digest> Registry::CommitVersion(const std::string& volume,
                                       std::string_view manifest,
                                       const std::string& annotations,
                                       CompressPolicy compress) {
  SV_RETURN_IF_ERROR(ValidateVolumeName(volume));
  SV_ASSIGN_OR_RETURN(Manifest m, ParseManifest(manifest));
  Digest digest = Sha256::Of(manifest);
  // Blobs this process stored become durable before anything names them.
  SV_RETURN_IF_ERROR(blobs_->Sync());
  std::vector<Digest> all;
  SV_ASSIGN_OR_RETURN(auto missing, MissingBlobs(m, 20, &all));
  if (!missing.empty()) {
    std::string list;
    for (const auto& s : missing) list += "\n  " + s;
    return FailedPrecondition("version " + digest.ToString() +
                              " names blobs the store lacks:" + list);
  }
  auto put = blobs_->Put(digest, EncodeEnvelope(manifest, compress));
  if (!put) return put.error();
  if (!*put) SV_RETURN_IF_ERROR(blobs_->Keep(digest));
  SV_RETURN_IF_ERROR(blobs_->Sync());
  all.push_back(digest);
  SV_RETURN_IF_ERROR(meta_->LinkBlobs(VolumeNamespace(volume), all));
  VersionRecord v;
  v.volume = volume;
  v.digest = digest;
  v.files = m.FileCount();
  v.bytes = m.TotalBytes();
  v.annotations = annotations;
  SV_RETURN_IF_ERROR(meta_->AddVersion(v));
  return digest;
}

Result<Digest> Registry::Resolve(const Ref& ref) {
  if (ref.digest) {
    SV_RETURN_IF_ERROR(meta_->GetVersion(ref.volume, *ref.digest).status());
    return *ref.digest;
  }
  return meta_->GetTag(ref.volume, ref.tag);
}

Result<Manifest> Registry::LoadManifest(const std::string& volume,
                                        const Digest& digest) {
  SV_RETURN_IF_ERROR(meta_->GetVersion(volume, digest).status());
  return ReadManifest(*blobs_, digest);
}

Status Registry::SetPin(const std::string& deployment, const std::string& path,
                        const std::string& volume, const Digest& digest,
                        const std::string& actor, const std::string& reason) {
  SV_RETURN_IF_ERROR(ValidateDeploymentName(deployment));
  SV_RETURN_IF_ERROR(ValidateMountPath(path));
  SV_RETURN_IF_ERROR(ValidateVolumeName(volume));
  return meta_->SetPin(deployment, path, volume, digest, actor, reason);
}

Result<std::vector<PinRecord>> Registry::ListPins(
    const std::string& deployment) {
  SV_RETURN_IF_ERROR(ValidateDeploymentName(deployment));
  return meta_->ListPins(deployment);
}

Result<std::vector<PinMove>> Registry::PinHistory(
    const std::string& deployment) {
  SV_RETURN_IF_ERROR(ValidateDeploymentName(deployment));
  return meta_->PinHistory(deployment);
}

Result<std::vector<PinRecord>> Registry::PinsOfVolume(
    const std::string& volume) {
  SV_RETURN_IF_ERROR(ValidateVolumeName(volume));
  return meta_->PinsOfVolume(volume);
}

Status Registry::MoveTag(const std::string& volume, const std::string& tag,
                         const std::optional<Digest>& to,
                         const TagExpect& expect, const std::string& actor,
                         const std::string& note) {
  SV_RETURN_IF_ERROR(ValidateVolumeName(volume));
  SV_RETURN_IF_ERROR(ValidateTag(tag));
  return meta_->MoveTag(volume, tag, to, expect, actor, note);
}

Result<uint64_t> Registry::LinkUnlinkedVersions() {
  uint64_t linked = 0;
  SV_ASSIGN_OR_RETURN(auto volumes, meta_->ListVolumes());
  for (const auto& volume : volumes) {
    std::string ns = VolumeNamespace(volume);
    SV_ASSIGN_OR_RETURN(auto versions, meta_->ListVersions(volume));
    for (const auto& v : versions) {
      SV_ASSIGN_OR_RETURN(auto unlinked, meta_->UnlinkedBlobs(ns, {v.digest}));
      if (unlinked.empty()) continue;
      SV_ASSIGN_OR_RETURN(Manifest m, ReadManifest(*blobs_, v.digest));
      std::vector<Digest> all;
      SV_ASSIGN_OR_RETURN(auto missing, MissingBlobs(m, 1, &all));
      if (!missing.empty()) {
        return Corruption("version " + volume + "@" + v.digest.ToString() +
                          " names a blob the store lacks: " + missing[0]);
      }
      all.push_back(v.digest);
      SV_RETURN_IF_ERROR(meta_->LinkBlobs(ns, all));
      ++linked;
    }
  }
  return linked;
}

Result<GcStats> Registry::CollectGarbage(int64_t grace_seconds, bool dry_run,
                                         int64_t now) {
  GcStats stats;
  // One collector at a time over this metadata (every replica's), held
  // until the sweep ends.
  SV_ASSIGN_OR_RETURN(std::unique_ptr<GcLease> lease, meta_->LockGc());
  std::unordered_set<Digest, DigestHash> live;
  SV_ASSIGN_OR_RETURN(std::vector<Digest> roots, meta_->AllVersionDigests());
  stats.versions = roots.size();
  for (const Digest& root : roots) {
    auto m = ReadManifest(*blobs_, root);
    if (!m) {
      return m.error().WithContext("gc stopped, nothing removed: version " +
                                   root.ToString() + " cannot be read");
    }
    live.insert(root);
    for (const auto& e : m->entries) {
      if (e.type != EntryType::kFile || e.size == 0) continue;
      if (e.chunks) live.insert(*e.chunks);
      auto chunks = FileChunks(*blobs_, e);
      if (!chunks) {
        return chunks.error().WithContext("gc stopped, nothing removed");
      }
      for (const auto& c : *chunks) live.insert(c.digest);
    }
  }
  stats.live_blobs = live.size();
  std::vector<BlobInfo> doomed;
  SV_RETURN_IF_ERROR(blobs_->List([&](const BlobInfo& b) {
    if (live.count(b.digest)) return;
    if (now - b.mtime < grace_seconds) {
      ++stats.young;
      return;
    }
    doomed.push_back(b);
  }));
  for (const auto& b : doomed) {
    ++stats.removed;
    stats.removed_bytes += b.stored_size;
    if (!dry_run) SV_RETURN_IF_ERROR(blobs_->Delete(b.digest));
  }
  return stats;
}

}  // namespace sealvol
