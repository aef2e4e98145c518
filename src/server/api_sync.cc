// The registry API's sync-job routes (docs/registry.md, "Sync jobs"):
//   POST   /v1/sync-jobs         {"source","volume","tag","include",
//                                 "exclude","full","note"} -> 202 + job
//   GET    /v1/sync-jobs         jobs on volumes the token may read
//   GET    /v1/sync-jobs/{id}    one job: state, progress, outcome
//   DELETE /v1/sync-jobs/{id}    cancel
// Starting or cancelling needs write access to the job's volume; reading
// one needs read access. The body has no place for credentials or
// endpoints: the server uses its own.
#include <nlohmann/json.hpp>
#include <set>

#include "server/api.h"
#include "server/api_util.h"

namespace sealvol::server {
namespace {

using json = nlohmann::json;
using api_util::Error;
using api_util::FromStatus;
using api_util::Json;

json JobJson(const JobView& v) {
  json j = {{"id", v.id},
            {"state", JobStateName(v.state)},
            {"source", v.source},
            {"volume", v.volume},
            {"tag", v.tag},
            {"actor", v.actor},
            {"include", v.include},
            {"exclude", v.exclude},
            {"created", v.created},
            {"total_bytes", v.total_bytes},
            {"read_bytes", v.read_bytes},
            {"downloaded_bytes", v.downloaded_bytes},
            {"new_bytes", v.new_bytes}};
  if (v.started) j["started"] = v.started;
  if (v.finished) j["finished"] = v.finished;
  if (!v.digest.empty()) j["digest"] = v.digest;
  if (!v.revision.empty()) j["revision"] = v.revision;
  if (!v.error.empty()) {
    j["error"] = {{"code", v.error_code}, {"message", v.error}};
  }
  return j;
}

// The request body as a SyncRequest; an error naming what is wrong.
std::optional<ApiResponse> ParseJob(const std::string& text, SyncRequest* r) {
  json body = json::parse(text, nullptr, false);
  if (!body.is_object()) {
    return Error(400, "invalid", "expected a JSON object");
  }
  static const std::set<std::string> kKeys = {
      "source", "volume", "tag", "include", "exclude", "full", "note"};
  for (const auto& [k, v] : body.items()) {
    if (!kKeys.count(k)) {
      return Error(400, "invalid",
                   "unknown field '" + k +
                       "' (credentials and endpoints come from the server's "
                       "own environment)");
    }
  }
  auto str = [&](const char* k, std::string* out, bool required) {
    if (!body.contains(k)) return !required;
    if (!body[k].is_string()) return false;
    *out = body[k].get<std::string>();
    return true;
  };
  auto list = [&](const char* k, std::vector<std::string>* out) {
    if (!body.contains(k)) return true;
    if (!body[k].is_array() || body[k].size() > 100) return false;
    for (const auto& x : body[k]) {
      if (!x.is_string()) return false;
      out->push_back(x.get<std::string>());
    }
    return true;
  };
  if (!str("source", &r->source, true) || !str("volume", &r->volume, true) ||
      !str("tag", &r->tag, false) || !str("note", &r->note, false) ||
      !list("include", &r->include) || !list("exclude", &r->exclude) ||
      (body.contains("full") && !body["full"].is_boolean())) {
    return Error(400, "invalid",
                 "expected {\"source\": URI, \"volume\": NAME, \"tag\": TAG, "
                 "\"include\": [GLOB], \"exclude\": [GLOB], \"full\": bool}");
  }
  r->full = body.value("full", false);
  return std::nullopt;
}

}  // namespace

ApiResponse Api::SyncJob(const Principal& who, const std::string& method,
                         const std::string& id, const std::string& body,
                         std::string* route) {
  if (sync_jobs_ == nullptr) {
    return Error(404, "not_found", "this registry runs no sync jobs");
  }
  if (id.empty()) {
    if (method == "GET") {
      *route = "sync_jobs";
      json jobs = json::array();
      for (const auto& v : sync_jobs_->List()) {
        if (who.Allows(Access::kRead, v.volume)) jobs.push_back(JobJson(v));
      }
      return Json(200, {{"jobs", jobs}});
    }
    *route = "sync_job_start";
    if (method != "POST") return Error(405, "method", "use GET or POST");
    SyncRequest r;
    if (auto bad = ParseJob(body, &r)) return *bad;
    if (!who.Allows(Access::kWrite, r.volume)) {
      return Error(403, "denied", "the token may not write " + r.volume);
    }
    r.actor = who.name;
    auto started = sync_jobs_->Start(std::move(r));
    if (!started) return FromStatus(started.error());
    return Json(202, JobJson(*sync_jobs_->Get(*started)));
  }
  *route = "sync_job";
  auto v = sync_jobs_->Get(id);
  // An unknown job and one on a volume the token may not read look alike.
  if (!v || !who.Allows(Access::kRead, v->volume)) {
    return Error(404, "not_found", "no sync job " + id);
  }
  if (method == "GET") return Json(200, JobJson(*v));
  if (method != "DELETE") return Error(405, "method", "use GET or DELETE");
  if (!who.Allows(Access::kWrite, v->volume)) {
    return Error(403, "denied", "the token may not write " + v->volume);
  }
  if (Status s = sync_jobs_->Cancel(id); !s.ok()) return FromStatus(s);
  return Json(200, JobJson(*sync_jobs_->Get(id)));
}

}  // namespace sealvol::server
