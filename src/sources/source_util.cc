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

Result<RemoteEntry*> AddListed(const std::string& what,
                               const std::string& prefix,
                               const std::string& name, uint64_t size,
                               std::string identity,
                               std::vector<RemoteEntry>* out) {
  if (name.size() < prefix.size() || name.compare(0, prefix.size(), prefix)) {
    return Corruption(what + " returned '" + name +
                      "', which is outside the prefix");
  }
  if (size == 0 && !name.empty() && name.back() == '/') {
    return static_cast<RemoteEntry*>(nullptr);
  }
  RemoteEntry& e = out->emplace_back();
  e.path = name.substr(prefix.size());
  e.size = size;
  e.identity = std::move(identity);
  e.locator = name;
  return &e;
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
