#include "base/status.h"

#include <cerrno>
#include <cstring>
#include <string>

namespace sealvol {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "OK";
    case StatusCode::kNotFound:
      return "NotFound";
    case StatusCode::kAlreadyExists:
      return "AlreadyExists";
    case StatusCode::kCorruption:
      return "Corruption";
    case StatusCode::kInvalidArgument:
      return "InvalidArgument";
    case StatusCode::kIOError:
      return "IOError";
    case StatusCode::kUnavailable:
      return "Unavailable";
    case StatusCode::kPermissionDenied:
      return "PermissionDenied";
    case StatusCode::kFailedPrecondition:
      return "FailedPrecondition";
  }
  return "Unknown";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return std::string(StatusCodeName(code_)) + ": " + message_;
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return *this;
  return Status(code_, std::string(context) + ": " + message_);
}

Status ErrnoStatus(int err, std::string_view what) {
  std::string msg = std::string(what) + ": " + std::strerror(err);
  switch (err) {
    case ENOENT:
      return NotFound(std::move(msg));
    case EACCES:
    case EPERM:
      return PermissionDenied(std::move(msg));
    case EEXIST:
      return AlreadyExists(std::move(msg));
    default:
      return IOError(std::move(msg));
  }
}

}  // namespace sealvol
