// Internal to client/: reading the registry's JSON answers. Not for use
// outside client/.
//
// Thread safety: reentrant free functions.
#ifndef SEALVOL_CLIENT_REMOTE_JSON_H_
#define SEALVOL_CLIENT_REMOTE_JSON_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "base/status.h"
#include "client/http_client.h"
#include "hash/digest.h"

namespace sealvol::remote_json {

using json = nlohmann::json;

// The body as a JSON object, or IOError naming `what`.
inline Result<json> ParseJson(const HttpResponse& r, const std::string& what) {
  json j = json::parse(r.body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return IOError(what + ": the registry answered something not JSON");
  }
  return j;
}

inline Result<std::optional<Digest>> OptDigest(const json& j) {
  if (j.is_null()) return std::optional<Digest>();
  if (!j.is_string()) return IOError("registry sent a digest not a string");
  SV_ASSIGN_OR_RETURN(Digest d, Digest::Parse(j.get<std::string>()));
  return std::optional<Digest>(d);
}

}  // namespace sealvol::remote_json

#endif  // SEALVOL_CLIENT_REMOTE_JSON_H_
