// Internal to sources/: what the source readers share. The environment
// lookup, the body of an answer to a ranged GET, decimal fields and quoted
// ETags in the stores' listings.
//
// Thread safety: reentrant functions.
#ifndef SEALVOL_SOURCES_SOURCE_UTIL_H_
#define SEALVOL_SOURCES_SOURCE_UTIL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "client/http_client.h"
#include "publish/remote_source.h"

namespace sealvol::sources_internal {

// The variable's value, or "" when unset.
std::string Env(const char* name);

// The bytes of an answer to a GET of `length` bytes from `offset`: a 206,
// or a 200 for a range from 0 (a server that ignored the range; cut to
// `length`). Corruption when a 206 holds more than asked. nullopt for any
// other status, which the caller turns into its own error.
std::optional<Result<std::string>> RangeBody(HttpResponse& r, uint64_t offset,
                                             uint64_t length,
                                             const std::string& what);

// The entry for an object `name` of `size` listed under `prefix` (a
// bucket's key, a blob's name), or nullptr for a folder marker (a zero-byte
// name ending in '/'), which the version does not hold. Corruption naming
// `what` when the store listed a name outside the prefix.
Result<RemoteEntry*> AddListed(const std::string& what,
                               const std::string& prefix,
                               const std::string& name, uint64_t size,
                               std::string identity,
                               std::vector<RemoteEntry>* out);

// A non-negative decimal of at most 19 digits, nullopt otherwise.
std::optional<uint64_t> ParseDecimal(std::string_view digits);

// `s` without one pair of surrounding double quotes.
std::string Unquote(std::string s);

}  // namespace sealvol::sources_internal

#endif  // SEALVOL_SOURCES_SOURCE_UTIL_H_
