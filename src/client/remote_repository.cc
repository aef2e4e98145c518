#include "client/remote_repository.h"

#include <nlohmann/json.hpp>

#include "client/remote_json.h"
#include "hash/sha256.h"
#include "registry/api_limits.h"

namespace sealvol {
namespace {

using json = nlohmann::json;
using remote_json::OptDigest;
using remote_json::ParseJson;

std::string VolumePath(const std::string& volume) {
  return "/v1/volumes/" + volume;
}

}  // namespace

Status StatusFromHttp(const HttpResponse& r, const std::string& what) {
  std::string msg;
  std::string code;
  json j = json::parse(r.body, nullptr, false);
  if (!j.is_discarded() && j.is_object() && j.contains("error") &&
      j["error"].is_object()) {
    msg = j["error"].value("message", "");
    code = j["error"].value("code", "");
  }
  if (msg.empty()) msg = "HTTP " + std::to_string(r.status);
  std::string full = what + ": " + msg;
  switch (r.status) {
    case 401:
      return PermissionDenied(full +
                              " (set SEALVOL_TOKEN or the remote's "
                              "token in the config file)");
    case 403:
      return PermissionDenied(full);
    case 404:
      return NotFound(full);
    case 400:
      return code == "digest_mismatch" || code == "corrupt"
                 ? Corruption(full)
                 : InvalidArgument(full);
    case 413:
    case 431:
      return InvalidArgument(full);
    case 409:
    case 412:
      return FailedPrecondition(full);
    default:
      return IOError(full);
  }
}

RemoteBlobStore::RemoteBlobStore(std::shared_ptr<HttpClient> client,
                                 std::string volume)
    : client_(std::move(client)), volume_(std::move(volume)) {}

std::string RemoteBlobStore::BlobPath(const Digest& d) const {
  return VolumePath(volume_) + "/blobs/" + d.ToString();
}

Result<bool> RemoteBlobStore::Put(const Digest& digest,
                                  std::string_view envelope) {
  SV_ASSIGN_OR_RETURN(HttpResponse r,
                      client_->Send("PUT", BlobPath(digest), envelope));
  if (r.status == 200 || r.status == 201) return r.status == 201;
  return StatusFromHttp(r, "upload " + digest.ToString());
}

Result<std::string> RemoteBlobStore::Get(const Digest& digest) {
  SV_ASSIGN_OR_RETURN(HttpResponse r, client_->Send("GET", BlobPath(digest)));
  if (r.status == 200) return std::move(r.body);
  if (r.status == 307 || r.status == 302) {
    // A registry with --redirect-blobs: the bytes come from object storage
    // by a presigned URL, fetched without the registry token. The caller
    // verifies them against the digest as it would the registry's.
    auto at = r.headers.find("location");
    if (at == r.headers.end()) {
      return Corruption("blob " + digest.ToString() +
                        ": the registry redirected without a Location");
    }
    SV_ASSIGN_OR_RETURN(HttpResponse o, client_->GetRedirected(at->second));
    if (o.status == 200) return std::move(o.body);
    if (o.status == 404) {
      return NotFound("blob " + digest.ToString() +
                      " is missing from the registry's bucket");
    }
    return IOError("blob " + digest.ToString() + ": the bucket answered HTTP " +
                   std::to_string(o.status) +
                   " to the registry's presigned URL");
  }
  return StatusFromHttp(r, "blob " + digest.ToString());
}

Result<bool> RemoteBlobStore::Has(const Digest& digest) {
  SV_ASSIGN_OR_RETURN(auto missing, Missing({digest}));
  return missing.empty();
}

Status RemoteBlobStore::Delete(const Digest&) {
  return FailedPrecondition(
      "blobs of a remote registry are removed by its own gc");
}

Status RemoteBlobStore::List(const std::function<void(const BlobInfo&)>&) {
  return FailedPrecondition("a remote registry's blobs cannot be listed");
}

Result<std::vector<Digest>> RemoteBlobStore::Missing(
    const std::vector<Digest>& digests) {
  std::vector<Digest> out;
  for (size_t i = 0; i < digests.size(); i += api::kMaxMissingBatch) {
    json list = json::array();
    size_t end = std::min(digests.size(), i + api::kMaxMissingBatch);
    for (size_t k = i; k < end; ++k) list.push_back(digests[k].ToString());
    SV_ASSIGN_OR_RETURN(
        HttpResponse r,
        client_->Send("POST", VolumePath(volume_) + "/blobs/missing",
                      json{{"digests", list}}.dump(),
                      {{"Content-Type", "application/json"}}));
    if (r.status != 200) return StatusFromHttp(r, "dedup query");
    SV_ASSIGN_OR_RETURN(json j, ParseJson(r, "dedup query"));
    if (!j.contains("missing") || !j["missing"].is_array()) {
      return IOError("dedup query: the registry's answer has no list");
    }
    for (const auto& d : j["missing"]) {
      SV_ASSIGN_OR_RETURN(auto parsed, OptDigest(d));
      if (parsed) out.push_back(*parsed);
    }
  }
  return out;
}

Result<BlobStore*> RemoteRepository::Blobs(const std::string& volume) {
  SV_RETURN_IF_ERROR(ValidateVolumeName(volume));
  std::lock_guard<std::mutex> lock(mu_);
  auto& slot = blobs_[volume];
  if (!slot) slot = std::make_unique<RemoteBlobStore>(client_, volume);
  return slot.get();
}

Result<Digest> RemoteRepository::CommitVersion(const std::string& volume,
                                               std::string_view manifest,
                                               const std::string& annotations,
                                               CompressPolicy) {
  SV_RETURN_IF_ERROR(ValidateVolumeName(volume));
  Digest digest = Sha256::Of(manifest);
  std::vector<std::pair<std::string, std::string>> headers = {
      {"Content-Type", "application/vnd.sealvol.manifest.v1+json"}};
  if (!annotations.empty()) {
    // One line of ASCII, whatever the annotations hold.
    json a = json::parse(annotations, nullptr, false);
    if (!a.is_discarded()) {
      headers.emplace_back("Sealvol-Annotations",
                           a.dump(-1, ' ', /*ensure_ascii=*/true));
    }
  }
  SV_ASSIGN_OR_RETURN(
      HttpResponse r,
      client_->Send("PUT",
                    VolumePath(volume) + "/versions/" + digest.ToString(),
                    manifest, headers));
  if (r.status == 200 || r.status == 201) return digest;
  return StatusFromHttp(r, "commit " + volume + "@" + digest.ToString());
}

Result<Digest> RemoteRepository::Resolve(const Ref& ref) {
  if (ref.digest) {
    SV_RETURN_IF_ERROR(GetVersion(ref.volume, *ref.digest).status());
    return *ref.digest;
  }
  return GetTag(ref.volume, ref.tag);
}

Result<Manifest> RemoteRepository::LoadManifest(const std::string& volume,
                                                const Digest& digest) {
  SV_ASSIGN_OR_RETURN(HttpResponse r,
                      client_->Send("GET", VolumePath(volume) + "/manifests/" +
                                               digest.ToString()));
  if (r.status != 200) {
    return StatusFromHttp(r, "manifest " + volume + "@" + digest.ToString());
  }
  if (Sha256::Of(r.body) != digest) {
    return Corruption("manifest of " + volume + "@" + digest.ToString() +
                      " from the registry does not match its digest");
  }
  return ParseManifest(r.body);
}

Status RemoteRepository::MoveTag(const std::string& volume,
                                 const std::string& tag,
                                 const std::optional<Digest>& to,
                                 const TagExpect& expect, const std::string&,
                                 const std::string& note) {
  SV_RETURN_IF_ERROR(ValidateVolumeName(volume));
  SV_RETURN_IF_ERROR(ValidateTag(tag));
  json body = {{"digest", to ? json(to->ToString()) : json()}, {"note", note}};
  if (expect.kind == TagExpect::Kind::kAbsent) body["expect"] = nullptr;
  if (expect.kind == TagExpect::Kind::kDigest) {
    body["expect"] = expect.digest.ToString();
  }
  SV_ASSIGN_OR_RETURN(
      HttpResponse r,
      client_->Send("PUT", VolumePath(volume) + "/tags/" + tag, body.dump(),
                    {{"Content-Type", "application/json"}}));
  if (r.status == 200) return Status::Ok();
  return StatusFromHttp(r, "tag " + volume + ":" + tag);
}

Result<json> RemoteRepository::VolumeList(const std::string& volume,
                                          const std::string& field) {
  SV_RETURN_IF_ERROR(ValidateVolumeName(volume));
  SV_ASSIGN_OR_RETURN(HttpResponse r, client_->Send("GET", VolumePath(volume)));
  if (r.status != 200) return StatusFromHttp(r, "volume " + volume);
  SV_ASSIGN_OR_RETURN(json j, ParseJson(r, "volume " + volume));
  if (!j.contains(field) || !j[field].is_array()) {
    return IOError("volume " + volume + ": the registry's answer has no " +
                   field);
  }
  return std::move(j[field]);
}

Result<std::vector<VersionRecord>> RemoteRepository::ListVersions(
    const std::string& volume) {
  SV_ASSIGN_OR_RETURN(json list, VolumeList(volume, "versions"));
  std::vector<VersionRecord> out;
  for (const auto& v : list) {
    VersionRecord rec;
    rec.volume = volume;
    SV_ASSIGN_OR_RETURN(rec.digest,
                        Digest::Parse(v.value("digest", std::string())));
    rec.created = v.value("created", int64_t{0});
    rec.files = v.value("files", uint64_t{0});
    rec.bytes = v.value("bytes", uint64_t{0});
    rec.annotations =
        v.contains("annotations") ? v["annotations"].dump() : "{}";
    out.push_back(std::move(rec));
  }
  return out;
}

Result<VersionRecord> RemoteRepository::GetVersion(const std::string& volume,
                                                   const Digest& digest) {
  SV_ASSIGN_OR_RETURN(auto versions, ListVersions(volume));
  for (auto& v : versions) {
    if (v.digest == digest) return std::move(v);
  }
  return NotFound("volume '" + volume + "' has no version " +
                  digest.ToString());
}

Result<std::vector<std::string>> RemoteRepository::ListVolumes() {
  SV_ASSIGN_OR_RETURN(HttpResponse r, client_->Send("GET", "/v1/volumes"));
  if (r.status != 200) return StatusFromHttp(r, "list volumes");
  SV_ASSIGN_OR_RETURN(json j, ParseJson(r, "list volumes"));
  std::vector<std::string> out;
  for (const auto& v : j.value("volumes", json::array())) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

Result<Digest> RemoteRepository::GetTag(const std::string& volume,
                                        const std::string& tag) {
  SV_RETURN_IF_ERROR(ValidateVolumeName(volume));
  SV_RETURN_IF_ERROR(ValidateTag(tag));
  SV_ASSIGN_OR_RETURN(HttpResponse r, client_->Send("GET", VolumePath(volume) +
                                                               "/tags/" + tag));
  if (r.status != 200) return StatusFromHttp(r, "tag " + volume + ":" + tag);
  SV_ASSIGN_OR_RETURN(json j, ParseJson(r, "tag " + volume + ":" + tag));
  return Digest::Parse(j.value("digest", std::string()));
}

Result<std::vector<TagRecord>> RemoteRepository::ListTags(
    const std::string& volume) {
  SV_ASSIGN_OR_RETURN(json list, VolumeList(volume, "tags"));
  std::vector<TagRecord> out;
  for (const auto& t : list) {
    TagRecord rec;
    rec.tag = t.value("tag", "");
    SV_ASSIGN_OR_RETURN(rec.digest,
                        Digest::Parse(t.value("digest", std::string())));
    rec.updated = t.value("updated", int64_t{0});
    out.push_back(std::move(rec));
  }
  return out;
}

Result<std::vector<TagMove>> RemoteRepository::TagHistory(
    const std::string& volume, const std::string& tag) {
  SV_RETURN_IF_ERROR(ValidateVolumeName(volume));
  SV_RETURN_IF_ERROR(ValidateTag(tag));
  SV_ASSIGN_OR_RETURN(
      HttpResponse r,
      client_->Send("GET", VolumePath(volume) + "/tags/" + tag + "/history"));
  if (r.status != 200) return StatusFromHttp(r, "history of " + tag);
  SV_ASSIGN_OR_RETURN(json j, ParseJson(r, "history of " + tag));
  std::vector<TagMove> out;
  for (const auto& m : j.value("history", json::array())) {
    TagMove move;
    SV_ASSIGN_OR_RETURN(move.from, OptDigest(m.value("from", json())));
    SV_ASSIGN_OR_RETURN(move.to, OptDigest(m.value("to", json())));
    move.at = m.value("at", int64_t{0});
    move.actor = m.value("actor", "");
    move.note = m.value("note", "");
    out.push_back(std::move(move));
  }
  return out;
}

}  // namespace sealvol
