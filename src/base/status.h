// Status and Result<T>: how every sealvol function reports an expected
// failure. No exceptions cross a component border for expected failures.
//
// A Status is a code plus a message that says what failed, on which object,
// and what to do. Result<T> holds either a T or a non-OK Status; its member
// names follow std::expected (has_value, value, error, operator*).
//
// Thread safety: value types; distinct objects may be used from any thread.
#ifndef SEALVOL_BASE_STATUS_H_
#define SEALVOL_BASE_STATUS_H_

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace sealvol {

enum class StatusCode {
  kOk = 0,
  kNotFound,
  kAlreadyExists,
  kCorruption,
  kInvalidArgument,
  kIOError,
  kUnavailable,
  kPermissionDenied,
  kFailedPrecondition,
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message)
      : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // "NotFound: blob sha256:… is missing from the store"
  std::string ToString() const;

  // Returns a copy whose message is prefixed with `context: `.
  Status WithContext(std::string_view context) const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status NotFound(std::string m) {
  return {StatusCode::kNotFound, std::move(m)};
}
inline Status AlreadyExists(std::string m) {
  return {StatusCode::kAlreadyExists, std::move(m)};
}
inline Status Corruption(std::string m) {
  return {StatusCode::kCorruption, std::move(m)};
}
inline Status InvalidArgument(std::string m) {
  return {StatusCode::kInvalidArgument, std::move(m)};
}
inline Status IOError(std::string m) {
  return {StatusCode::kIOError, std::move(m)};
}
inline Status Unavailable(std::string m) {
  return {StatusCode::kUnavailable, std::move(m)};
}
inline Status PermissionDenied(std::string m) {
  return {StatusCode::kPermissionDenied, std::move(m)};
}
inline Status FailedPrecondition(std::string m) {
  return {StatusCode::kFailedPrecondition, std::move(m)};
}

// IOError (or NotFound/PermissionDenied for ENOENT/EACCES) naming `what` and
// the strerror text of `err`.
Status ErrnoStatus(int err, std::string_view what);

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}        // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {  // NOLINT
    assert(!std::get<Status>(v_).ok());
  }

  bool has_value() const { return v_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  // REQUIRES: !has_value()
  const Status& error() const { return std::get<Status>(v_); }
  // OK when a value is held, else the error.
  Status status() const { return has_value() ? Status::Ok() : error(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace sealvol

// Returns early from the enclosing function when `expr` is a non-OK Status.
#define SV_RETURN_IF_ERROR(expr)             \
  do {                                       \
    ::sealvol::Status sv_status_ = (expr);   \
    if (!sv_status_.ok()) return sv_status_; \
  } while (0)

#define SV_CONCAT_INNER(a, b) a##b
#define SV_CONCAT(a, b) SV_CONCAT_INNER(a, b)
// `SV_ASSIGN_OR_RETURN(auto x, MakeX());` binds the value or returns the error.
#define SV_ASSIGN_OR_RETURN(lhs, expr) \
  SV_ASSIGN_OR_RETURN_IMPL(SV_CONCAT(sv_result_, __LINE__), lhs, expr)
#define SV_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.has_value()) return tmp.error();      \
  lhs = std::move(tmp).value()

#endif  // SEALVOL_BASE_STATUS_H_
