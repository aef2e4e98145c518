#include "sources/source_util.h"

#include <cstdlib>

namespace sealvol::sources_internal {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::optional<Result<std::string>> RangeBody(HttpResponse& r, uint64_t offset,
                                             uint64_t length,
                                             const std::string& what) {
  if (r.status == 200 && offset == 0) {
    if (r.body.size() > length) r.body.resize(length);
    return Result<std::string>(std::move(r.body));
  }
  if (r.status != 206) return std::nullopt;
  if (r.body.size() > length) {
    return Result<std::string>(
        Corruption(what + ": more bytes than the range asked for"));
  }
  return Result<std::string>(std::move(r.body));
}

std::optional<uint64_t> ParseDecimal(std::string_view digits) {
  if (digits.empty() || digits.size() > 19 ||
      digits.find_first_not_of("0123456789") != std::string_view::npos) {
    return std::nullopt;
  }
  return std::strtoull(std::string(digits).c_str(), nullptr, 10);
}

std::string Unquote(std::string s) {
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') {
    return s.substr(1, s.size() - 2);
  }
  return s;
}

}  // namespace sealvol::sources_internal
