// RemoteRepository's pins: deployments through the registry API
// (docs/registry.md, "Deployments").
#include <nlohmann/json.hpp>

#include "client/remote_json.h"
#include "client/remote_repository.h"

namespace sealvol {
namespace {

using json = nlohmann::json;
using remote_json::OptDigest;
using remote_json::ParseJson;

Result<PinRecord> PinFromJson(const json& p, const std::string& deployment) {
  PinRecord rec;
  rec.deployment = p.value("deployment", deployment);
  rec.path = p.value("path", "");
  rec.volume = p.value("volume", "");
  SV_ASSIGN_OR_RETURN(rec.digest,
                      Digest::Parse(p.value("digest", std::string())));
  rec.updated = p.value("updated", int64_t{0});
  return rec;
}

}  // namespace

Status RemoteRepository::SetPin(const std::string& deployment,
                                const std::string& path,
                                const std::string& volume, const Digest& digest,
                                const std::string&, const std::string& reason) {
  SV_RETURN_IF_ERROR(ValidateDeploymentName(deployment));
  SV_RETURN_IF_ERROR(ValidateMountPath(path));
  SV_RETURN_IF_ERROR(ValidateVolumeName(volume));
  json body = {{"path", path},
               {"volume", volume},
               {"digest", digest.ToString()},
               {"reason", reason}};
  SV_ASSIGN_OR_RETURN(
      HttpResponse r,
      client_->Send("PUT", "/v1/deployments/" + deployment + "/pins",
                    body.dump(), {{"Content-Type", "application/json"}}));
  if (r.status == 200) return Status::Ok();
  return StatusFromHttp(r, "pin " + deployment + " " + path);
}

Result<json> RemoteRepository::DeploymentDoc(const std::string& deployment) {
  SV_RETURN_IF_ERROR(ValidateDeploymentName(deployment));
  SV_ASSIGN_OR_RETURN(HttpResponse r,
                      client_->Send("GET", "/v1/deployments/" + deployment));
  if (r.status != 200) return StatusFromHttp(r, "deployment " + deployment);
  return ParseJson(r, "deployment " + deployment);
}

Result<std::vector<PinRecord>> RemoteRepository::ListPins(
    const std::string& deployment) {
  SV_ASSIGN_OR_RETURN(json doc, DeploymentDoc(deployment));
  std::vector<PinRecord> out;
  for (const auto& p : doc.value("pins", json::array())) {
    SV_ASSIGN_OR_RETURN(PinRecord rec, PinFromJson(p, deployment));
    out.push_back(std::move(rec));
  }
  return out;
}

Result<std::vector<PinMove>> RemoteRepository::PinHistory(
    const std::string& deployment) {
  SV_ASSIGN_OR_RETURN(json doc, DeploymentDoc(deployment));
  std::vector<PinMove> out;
  for (const auto& m : doc.value("history", json::array())) {
    PinMove move;
    move.path = m.value("path", "");
    move.volume = m.value("volume", "");
    SV_ASSIGN_OR_RETURN(move.from, OptDigest(m.value("from", json())));
    SV_ASSIGN_OR_RETURN(move.to, Digest::Parse(m.value("to", std::string())));
    move.at = m.value("at", int64_t{0});
    move.actor = m.value("actor", "");
    move.reason = m.value("reason", "");
    out.push_back(std::move(move));
  }
  return out;
}

Result<std::vector<PinRecord>> RemoteRepository::PinsOfVolume(
    const std::string& volume) {
  SV_ASSIGN_OR_RETURN(json list, VolumeList(volume, "pins"));
  std::vector<PinRecord> out;
  for (const auto& p : list) {
    SV_ASSIGN_OR_RETURN(PinRecord rec, PinFromJson(p, ""));
    out.push_back(std::move(rec));
  }
  return out;
}

}  // namespace sealvol
