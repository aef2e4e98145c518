#include "client/remote_sync.h"

#include "client/remote_json.h"
#include "client/remote_repository.h"

namespace sealvol {
namespace {

using json = nlohmann::json;

// Job ids are hex; anything else would change the path.
Status CheckId(const std::string& id) {
  if (id.empty() || id.size() > 64 ||
      id.find_first_not_of("0123456789abcdef") != std::string::npos) {
    return InvalidArgument("'" + id + "' is not a sync job id");
  }
  return Status::Ok();
}

}  // namespace

Result<json> RemoteSyncJobs::Start(const json& request) {
  SV_ASSIGN_OR_RETURN(HttpResponse r,
                      client_->Send("POST", "/v1/sync-jobs", request.dump(),
                                    {{"Content-Type", "application/json"}}));
  if (r.status != 202) return StatusFromHttp(r, "start a sync job");
  return remote_json::ParseJson(r, "start a sync job");
}

Result<json> RemoteSyncJobs::Get(const std::string& id) {
  SV_RETURN_IF_ERROR(CheckId(id));
  SV_ASSIGN_OR_RETURN(HttpResponse r,
                      client_->Send("GET", "/v1/sync-jobs/" + id));
  if (r.status != 200) return StatusFromHttp(r, "sync job " + id);
  return remote_json::ParseJson(r, "sync job " + id);
}

Result<json> RemoteSyncJobs::List() {
  SV_ASSIGN_OR_RETURN(HttpResponse r, client_->Send("GET", "/v1/sync-jobs"));
  if (r.status != 200) return StatusFromHttp(r, "sync jobs");
  return remote_json::ParseJson(r, "sync jobs");
}

Result<json> RemoteSyncJobs::Cancel(const std::string& id) {
  SV_RETURN_IF_ERROR(CheckId(id));
  SV_ASSIGN_OR_RETURN(HttpResponse r,
                      client_->Send("DELETE", "/v1/sync-jobs/" + id));
  if (r.status != 200) return StatusFromHttp(r, "cancel sync job " + id);
  return remote_json::ParseJson(r, "cancel sync job " + id);
}

Status JobFailure(const json& job) {
  std::string state = job.value("state", "");
  std::string id = job.value("id", "");
  if (state == "cancelled") {
    return FailedPrecondition("sync job " + id + " was cancelled");
  }
  std::string code, msg = "failed";
  if (job.contains("error") && job["error"].is_object()) {
    code = job["error"].value("code", "");
    msg = job["error"].value("message", msg);
  }
  std::string full = "sync job " + id + " on the server: " + msg;
  if (code == "not_found") return NotFound(full);
  if (code == "corrupt") return Corruption(full);
  if (code == "invalid") return InvalidArgument(full);
  if (code == "denied") return PermissionDenied(full);
  if (code == "conflict") return FailedPrecondition(full);
  if (code == "unavailable") return Unavailable(full);
  return IOError(full);
}

}  // namespace sealvol
