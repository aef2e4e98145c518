// The registry API's deployment routes (docs/registry.md, "Deployments"):
//   GET /v1/deployments/{name}       its pins and pin history
//   PUT /v1/deployments/{name}/pins  {"path","volume","digest","reason"}
// A deployment has no access rules of its own: pinning needs write access
// to the pinned volume, and a reader sees only pins on volumes it may read.
#include <nlohmann/json.hpp>

#include "server/api.h"
#include "server/api_util.h"

namespace sealvol::server {
namespace {

using json = nlohmann::json;
using api_util::Error;
using api_util::FromStatus;
using api_util::Json;
using api_util::OptDigest;

std::optional<std::string> StringField(const json& body, const char* key) {
  if (!body.contains(key) || !body[key].is_string()) return std::nullopt;
  return body[key].get<std::string>();
}

}  // namespace

ApiResponse Api::Deployment(const Principal& who, const std::string& method,
                            std::string rest, const std::string& body_text,
                            std::string* route) {
  bool pins = false;
  constexpr std::string_view kPins = "/pins";
  if (rest.size() > kPins.size() &&
      rest.compare(rest.size() - kPins.size(), kPins.size(), kPins) == 0) {
    pins = true;
    rest.resize(rest.size() - kPins.size());
  }
  const std::string& name = rest;
  if (Status s = ValidateDeploymentName(name); !s.ok()) {
    return Error(400, "invalid", s.message());
  }
  if (!pins) {
    *route = "deployment";
    if (method != "GET") return Error(405, "method", "use GET");
    auto list = meta_->ListPins(name);
    if (!list) return FromStatus(list.error());
    auto moves = meta_->PinHistory(name);
    if (!moves) return FromStatus(moves.error());
    json ps = json::array(), hs = json::array();
    for (const auto& p : *list) {
      if (!who.Allows(Access::kRead, p.volume)) continue;
      ps.push_back({{"path", p.path},
                    {"volume", p.volume},
                    {"digest", p.digest.ToString()},
                    {"updated", p.updated}});
    }
    for (const auto& m : *moves) {
      if (!who.Allows(Access::kRead, m.volume)) continue;
      hs.push_back({{"path", m.path},
                    {"volume", m.volume},
                    {"from", OptDigest(m.from)},
                    {"to", m.to.ToString()},
                    {"at", m.at},
                    {"actor", m.actor},
                    {"reason", m.reason}});
    }
    return Json(200, {{"deployment", name}, {"pins", ps}, {"history", hs}});
  }
  *route = "pin_put";
  if (method != "PUT") return Error(405, "method", "use PUT");
  json body = json::parse(body_text, nullptr, false);
  auto path = StringField(body, "path");
  auto volume = StringField(body, "volume");
  auto digest_text = StringField(body, "digest");
  if (body.is_discarded() || !path || !volume || !digest_text) {
    return Error(400, "invalid",
                 "expected {\"path\": ..., \"volume\": ..., \"digest\": ..., "
                 "\"reason\": ...}");
  }
  auto reason = body.contains("reason") ? StringField(body, "reason")
                                        : std::optional<std::string>("");
  if (!reason) return Error(400, "invalid", "reason is a string");
  if (Status s = ValidateVolumeName(*volume); !s.ok()) {
    return Error(400, "invalid", s.message());
  }
  auto digest = Digest::Parse(*digest_text);
  if (!digest) return Error(400, "invalid", digest.error().message());
  if (!who.Allows(Access::kWrite, *volume)) {
    return Error(403, "forbidden",
                 "token '" + who.name + "' may not write " + *volume);
  }
  Status s = registry_.SetPin(name, *path, *volume, *digest, who.name, *reason);
  if (!s.ok()) return FromStatus(s);
  return Json(200, {{"deployment", name},
                    {"path", *path},
                    {"volume", *volume},
                    {"digest", digest->ToString()}});
}

}  // namespace sealvol::server
