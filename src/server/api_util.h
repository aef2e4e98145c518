// Internal to server/: building the API's JSON answers. Not for use
// outside server/.
//
// Thread safety: reentrant free functions.
#ifndef SEALVOL_SERVER_API_UTIL_H_
#define SEALVOL_SERVER_API_UTIL_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "base/status.h"
#include "hash/digest.h"
#include "server/api.h"

namespace sealvol::server::api_util {

using json = nlohmann::json;

inline ApiResponse Json(int status, const json& j) {
  ApiResponse r;
  r.status = status;
  // Messages may quote request bytes that are not UTF-8.
  r.body = j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  return r;
}

inline ApiResponse Error(int status, const std::string& code,
                         const std::string& message) {
  return Json(status, {{"error", {{"code", code}, {"message", message}}}});
}

// The HTTP answer for a failed operation. Internal failures are not
// described to the client (their messages name server paths).
inline ApiResponse FromStatus(const Status& s) {
  switch (s.code()) {
    case StatusCode::kNotFound:
      return Error(404, "not_found", s.message());
    case StatusCode::kInvalidArgument:
      return Error(400, "invalid", s.message());
    case StatusCode::kCorruption:
      return Error(400, "corrupt", s.message());
    case StatusCode::kFailedPrecondition:
    case StatusCode::kAlreadyExists:
      return Error(409, "conflict", s.message());
    case StatusCode::kPermissionDenied:
      return Error(403, "denied", s.message());
    case StatusCode::kUnavailable:
      return Error(503, "unavailable", "the registry's store is unavailable");
    default:
      return Error(500, "internal", "internal error (see the server log)");
  }
}

inline json OptDigest(const std::optional<Digest>& d) {
  return d ? json(d->ToString()) : json(nullptr);
}

}  // namespace sealvol::server::api_util

#endif  // SEALVOL_SERVER_API_UTIL_H_
