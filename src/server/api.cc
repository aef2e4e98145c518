#include "server/api.h"

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "hash/sha256.h"
#include "registry/namespaced_blob_store.h"
#include "server/api_util.h"
#include "store/blob_reader.h"

namespace sealvol::server {
namespace {

using json = nlohmann::json;
using api_util::Error;
using api_util::FromStatus;
using api_util::Json;
using api_util::OptDigest;

std::optional<std::string> PercentDecode(std::string_view in) {
  std::string out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '%') {
      out += in[i];
      continue;
    }
    if (i + 2 >= in.size() || !isxdigit(in[i + 1]) || !isxdigit(in[i + 2])) {
      return std::nullopt;
    }
    out += static_cast<char>(
        std::stoi(std::string(in.substr(i + 1, 2)), nullptr, 16));
    i += 2;
  }
  return out;
}

json VersionJson(const VersionRecord& v) {
  json a = json::parse(v.annotations, nullptr, false);
  if (a.is_discarded()) a = json::object();
  return {{"digest", v.digest.ToString()},
          {"created", v.created},
          {"files", v.files},
          {"bytes", v.bytes},
          {"annotations", a}};
}

}  // namespace

struct Api::Call {
  const ApiRequest& req;
  std::optional<Principal> principal;
  std::string volume;
  std::unique_ptr<NamespacedBlobStore> blobs;
  std::string route = "other";
};

uint64_t Api::BodyLimit(const std::string& method, const std::string& target) {
  if (method != "PUT" && method != "POST") return 0;
  std::string path = target.substr(0, target.find('?'));
  if (path.find("/blobs/missing") != std::string::npos) {
    return kMaxMissingBatch * 80 + 1024;
  }
  if (path.find("/blobs/") != std::string::npos) return kMaxEnvelopeSize;
  if (path.find("/versions/") != std::string::npos) return kMaxManifestBytes;
  return kMaxSmallBody;
}

ApiResponse Api::Handle(const ApiRequest& req) {
  Call call{req, tokens_->Authenticate(req.authorization), {}, {}, "other"};
  ApiResponse r = Route(call);
  r.route = call.route;
  if (call.principal) r.actor = call.principal->name;
  return r;
}

ApiResponse Api::Route(Call& call) {
  const std::string& method = call.req.method;
  std::string path = call.req.target.substr(0, call.req.target.find('?'));
  if (path == "/healthz") {
    call.route = "healthz";
    ApiResponse r;
    r.content_type = "text/plain";
    r.body = "ok\n";
    return r;
  }
  if (path == "/metrics") {
    call.route = "metrics";
    ApiResponse r;
    r.content_type = "text/plain; version=0.0.4";
    r.body = metrics_->Render();
    return r;
  }
  if (!call.principal) {
    ApiResponse r =
        Error(401, "unauthorized",
              call.req.authorization.empty() ? "a bearer token is required"
                                             : "the token is not valid");
    r.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"sealvol\"");
    return r;
  }
  if (path == "/v1/volumes") {
    call.route = "volumes";
    if (method != "GET") return Error(405, "method", "use GET");
    return ListVolumes(call);
  }
  constexpr std::string_view kSyncJobs = "/v1/sync-jobs";
  if (path == kSyncJobs || path.rfind(std::string(kSyncJobs) + "/", 0) == 0) {
    std::string id =
        path.size() > kSyncJobs.size() ? path.substr(kSyncJobs.size() + 1) : "";
    if (path.size() > kSyncJobs.size() && id.empty()) {
      return Error(404, "not_found", "no such route: " + path);
    }
    return SyncJob(*call.principal, method, id, call.req.body, &call.route);
  }
  constexpr std::string_view kDeployments = "/v1/deployments/";
  if (path.rfind(kDeployments, 0) == 0) {
    return Deployment(*call.principal, method, path.substr(kDeployments.size()),
                      call.req.body, &call.route);
  }
  constexpr std::string_view kPrefix = "/v1/volumes/";
  if (path.rfind(kPrefix, 0) != 0) {
    return Error(404, "not_found", "no such route: " + path);
  }
  std::vector<std::string> segs;
  std::string_view rest = std::string_view(path).substr(kPrefix.size());
  while (true) {
    size_t slash = rest.find('/');
    auto seg = PercentDecode(rest.substr(0, slash));
    if (!seg || seg->empty() || *seg == "." || *seg == ".." ||
        seg->find('/') != std::string::npos) {
      return Error(400, "invalid", "bad path segment in " + path);
    }
    segs.push_back(*seg);
    if (slash == std::string_view::npos) break;
    rest = rest.substr(slash + 1);
  }
  size_t n = segs.size();
  auto join = [&](size_t count) {
    std::string v;
    for (size_t i = 0; i < count; ++i) v += (i ? "/" : "") + segs[i];
    return v;
  };
  std::string verb, arg;
  if (n >= 4 && segs[n - 1] == "history" && segs[n - 3] == "tags") {
    verb = "history";
    arg = segs[n - 2];
    call.volume = join(n - 3);
  } else if (n >= 3 && (segs[n - 2] == "blobs" || segs[n - 2] == "versions" ||
                        segs[n - 2] == "manifests" || segs[n - 2] == "tags")) {
    verb = segs[n - 2];
    arg = segs[n - 1];
    call.volume = join(n - 2);
  } else {
    call.volume = join(n);
  }
  if (Status s = ValidateVolumeName(call.volume); !s.ok()) {
    return Error(400, "invalid", s.message());
  }
  call.blobs = std::make_unique<NamespacedBlobStore>(
      blobs_, meta_, VolumeNamespace(call.volume));
  Access need =
      (method == "GET" || method == "HEAD") ? Access::kRead : Access::kWrite;
  if (verb == "blobs" && arg == "missing") need = Access::kWrite;
  if (!call.principal->Allows(need, call.volume)) {
    return Error(403, "forbidden",
                 "token '" + call.principal->name + "' may not " +
                     (need == Access::kRead ? "read " : "write ") +
                     call.volume);
  }
  auto only = [&](const char* m) {
    return Error(405, "method", std::string("use ") + m);
  };
  if (verb == "blobs" && arg == "missing") {
    call.route = "blobs_missing";
    return method == "POST" ? Missing(call) : only("POST");
  }
  if (verb == "blobs") {
    call.route = method == "PUT" ? "blob_put" : "blob_get";
    if (method == "PUT") return PutBlob(call, arg);
    return method == "GET" ? GetBlob(call, arg) : only("GET or PUT");
  }
  if (verb == "versions") {
    call.route = "commit";
    return method == "PUT" ? Commit(call, arg) : only("PUT");
  }
  if (verb == "manifests") {
    call.route = "manifest";
    return method == "GET" ? GetManifest(call, arg) : only("GET");
  }
  if (verb == "tags") {
    call.route = method == "PUT" ? "tag_put" : "tag_get";
    if (method == "PUT") return MoveTag(call, arg);
    return method == "GET" ? GetTag(call, arg) : only("GET or PUT");
  }
  if (verb == "history") {
    call.route = "tag_history";
    return method == "GET" ? History(call, arg) : only("GET");
  }
  call.route = "volume";
  return method == "GET" ? ShowVolume(call) : only("GET");
}

ApiResponse Api::Missing(Call& call) {
  json body = json::parse(call.req.body, nullptr, false);
  if (body.is_discarded() || !body.is_object() || !body.contains("digests") ||
      !body["digests"].is_array()) {
    return Error(400, "invalid", "expected {\"digests\": [...]}");
  }
  if (body["digests"].size() > kMaxMissingBatch) {
    return Error(
        413, "too_large",
        "at most " + std::to_string(kMaxMissingBatch) + " digests per query");
  }
  std::vector<Digest> digests;
  for (const auto& d : body["digests"]) {
    if (!d.is_string()) return Error(400, "invalid", "digests are strings");
    auto parsed = Digest::Parse(d.get<std::string>());
    if (!parsed) return Error(400, "invalid", parsed.error().message());
    digests.push_back(*parsed);
  }
  auto missing = call.blobs->Missing(digests);
  if (!missing) return FromStatus(missing.error());
  json out = json::array();
  for (const Digest& d : *missing) out.push_back(d.ToString());
  return Json(200, {{"missing", out}});
}

ApiResponse Api::PutBlob(Call& call, const std::string& text) {
  auto digest = Digest::Parse(text);
  if (!digest) return Error(400, "invalid", digest.error().message());
  // Verified in full before anything is kept.
  auto plain =
      DecodeVerified(call.req.body, *digest, kUnknownSize, kMaxManifestBytes);
  if (!plain) {
    return Error(400, "digest_mismatch",
                 "blob does not match " + digest->ToString() + ": " +
                     plain.error().message());
  }
  auto added = call.blobs->Put(*digest, call.req.body);
  if (!added) return FromStatus(added.error());
  metrics_->BlobUpload(*added, call.req.body.size());
  return Json(*added ? 201 : 200,
              {{"digest", digest->ToString()}, {"added", *added}});
}

ApiResponse Api::GetBlob(Call& call, const std::string& text) {
  auto digest = Digest::Parse(text);
  if (!digest) return Error(400, "invalid", digest.error().message());
  if (presign_) {
    // The namespace check the bytes would get, without reading them.
    auto linked = call.blobs->Linked(*digest);
    if (!linked) return FromStatus(linked.error());
    if (*linked) {
      std::string url = presign_(*digest);
      if (!url.empty()) {
        ApiResponse r;
        r.status = 307;
        r.headers.emplace_back("Location", url);
        r.headers.emplace_back("Cache-Control", "no-store");
        r.content_type = "text/plain";
        return r;
      }
    }
  }
  auto env = call.blobs->Get(*digest);
  if (!env) return FromStatus(env.error());
  ApiResponse r;
  r.content_type = "application/octet-stream";
  r.body = std::move(*env);
  return r;
}

ApiResponse Api::Commit(Call& call, const std::string& text) {
  auto digest = Digest::Parse(text);
  if (!digest) return Error(400, "invalid", digest.error().message());
  if (Sha256::Of(call.req.body) != *digest) {
    return Error(400, "digest_mismatch",
                 "the manifest's sha256 is not " + digest->ToString());
  }
  json ann = json::object();
  if (!call.req.annotations.empty()) {
    if (call.req.annotations.size() > kMaxAnnotations) {
      return Error(413, "too_large", "annotations exceed 64 KiB");
    }
    ann = json::parse(call.req.annotations, nullptr, false);
    if (ann.is_discarded() || !ann.is_object()) {
      return Error(400, "invalid", "annotations must be a JSON object");
    }
  }
  ann["registry_actor"] = call.principal->name;
  // A file stored as one blob must be that many bytes: the registry does
  // not commit a version that no reader could verify. (Chunked files are
  // checked against their chunk index by CommitVersion.)
  auto parsed = ParseManifest(call.req.body);
  if (!parsed) return Error(400, "corrupt", parsed.error().message());
  for (const auto& e : parsed->entries) {
    if (e.type != EntryType::kFile || e.size == 0 || e.chunks) continue;
    auto bytes = ReadBlob(*call.blobs, e.sha256, e.size, e.size);
    if (!bytes && bytes.error().code() == StatusCode::kCorruption) {
      return Error(400, "corrupt",
                   e.path + ": its blob is not " + std::to_string(e.size) +
                       " bytes with sha256 " + e.sha256.ToString());
    }
  }
  Registry ns(call.blobs.get(), meta_);
  auto committed =
      ns.CommitVersion(call.volume, call.req.body,
                       ann.dump(-1, ' ', false, json::error_handler_t::replace),
                       CompressPolicy::kAuto);
  if (!committed) {
    ApiResponse r = FromStatus(committed.error());
    if (r.status == 409) {
      // The message lists "  sha256:... (what)" lines: the missing blobs.
      json missing = json::array();
      const std::string& m = committed.error().message();
      for (size_t p = m.find("\n  "); p != std::string::npos;
           p = m.find("\n  ", p + 1)) {
        missing.push_back(m.substr(p + 3, m.find(' ', p + 3) - (p + 3)));
      }
      json j = json::parse(r.body);
      j["missing"] = missing;
      r.body = j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
    }
    return r;
  }
  return Json(201, {{"digest", committed->ToString()}});
}

ApiResponse Api::GetManifest(Call& call, const std::string& text) {
  Ref ref;
  ref.volume = call.volume;
  if (text.rfind("sha256:", 0) == 0) {
    auto d = Digest::Parse(text);
    if (!d) return Error(400, "invalid", d.error().message());
    ref.digest = *d;
  } else {
    if (Status s = ValidateTag(text); !s.ok()) {
      return Error(400, "invalid", s.message());
    }
    ref.tag = text;
  }
  auto digest = registry_.Resolve(ref);
  if (!digest) return FromStatus(digest.error());
  auto bytes = ReadBlob(*call.blobs, *digest);
  if (!bytes) return FromStatus(bytes.error());
  ApiResponse r;
  r.content_type = "application/vnd.sealvol.manifest.v1+json";
  r.headers.emplace_back("Sealvol-Digest", digest->ToString());
  r.body = std::move(*bytes);
  return r;
}

ApiResponse Api::ListVolumes(Call& call) {
  auto volumes = meta_->ListVolumes();
  if (!volumes) return FromStatus(volumes.error());
  json out = json::array();
  for (const auto& v : *volumes) {
    if (call.principal->Allows(Access::kRead, v)) out.push_back(v);
  }
  return Json(200, {{"volumes", out}});
}

ApiResponse Api::ShowVolume(Call& call) {
  auto versions = meta_->ListVersions(call.volume);
  if (!versions) return FromStatus(versions.error());
  auto tags = meta_->ListTags(call.volume);
  if (!tags) return FromStatus(tags.error());
  auto pins = meta_->PinsOfVolume(call.volume);
  if (!pins) return FromStatus(pins.error());
  json vs = json::array(), ts = json::array(), ps = json::array();
  for (const auto& v : *versions) vs.push_back(VersionJson(v));
  for (const auto& p : *pins) {
    ps.push_back({{"deployment", p.deployment},
                  {"path", p.path},
                  {"digest", p.digest.ToString()},
                  {"updated", p.updated}});
  }
  for (const auto& t : *tags) {
    ts.push_back({{"tag", t.tag},
                  {"digest", t.digest.ToString()},
                  {"updated", t.updated}});
  }
  return Json(
      200,
      {{"name", call.volume}, {"versions", vs}, {"tags", ts}, {"pins", ps}});
}

ApiResponse Api::GetTag(Call& call, const std::string& tag) {
  auto d = meta_->GetTag(call.volume, tag);
  if (!d) return FromStatus(d.error());
  return Json(200, {{"tag", tag}, {"digest", d->ToString()}});
}

ApiResponse Api::MoveTag(Call& call, const std::string& tag) {
  json body = json::parse(call.req.body, nullptr, false);
  if (body.is_discarded() || !body.is_object() || !body.contains("digest")) {
    return Error(400, "invalid",
                 "expected {\"digest\": ..., \"expect\": ..., \"note\": ...}");
  }
  auto digest_of = [](const json& j) -> Result<std::optional<Digest>> {
    if (j.is_null()) return std::optional<Digest>();
    if (!j.is_string()) return InvalidArgument("a digest is a string or null");
    SV_ASSIGN_OR_RETURN(Digest d, Digest::Parse(j.get<std::string>()));
    return std::optional<Digest>(d);
  };
  auto to = digest_of(body["digest"]);
  if (!to) return Error(400, "invalid", to.error().message());
  TagExpect expect = TagExpect::Any();
  if (body.contains("expect")) {
    auto e = digest_of(body["expect"]);
    if (!e) return Error(400, "invalid", e.error().message());
    expect = *e ? TagExpect::Is(**e) : TagExpect::Absent();
  }
  std::string note;
  if (body.contains("note")) {
    if (!body["note"].is_string()) {
      return Error(400, "invalid", "note is a string");
    }
    note = body["note"].get<std::string>();
  }
  if (!*to && !call.principal->Allows(Access::kAdmin, call.volume)) {
    return Error(403, "forbidden",
                 "removing a tag needs admin access to " + call.volume);
  }
  Status s = registry_.MoveTag(call.volume, tag, *to, expect,
                               call.principal->name, note);
  if (s.code() == StatusCode::kFailedPrecondition) {
    auto cur = meta_->GetTag(call.volume, tag);
    return Json(
        412, {{"error", {{"code", "precondition"}, {"message", s.message()}}},
              {"current", cur ? json(cur->ToString()) : json()}});
  }
  if (!s.ok()) return FromStatus(s);
  return Json(200, {{"tag", tag}, {"digest", OptDigest(*to)}});
}

ApiResponse Api::History(Call& call, const std::string& tag) {
  auto moves = meta_->TagHistory(call.volume, tag);
  if (!moves) return FromStatus(moves.error());
  json out = json::array();
  for (const auto& m : *moves) {
    out.push_back({{"from", OptDigest(m.from)},
                   {"to", OptDigest(m.to)},
                   {"at", m.at},
                   {"actor", m.actor},
                   {"note", m.note}});
  }
  return Json(200, {{"tag", tag}, {"history", out}});
}

}  // namespace sealvol::server
