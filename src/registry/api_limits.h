// Limits of the registry API, version 1, shared by the server (which
// answers 413 beyond them) and the client (which stays within them).
#ifndef SEALVOL_REGISTRY_API_LIMITS_H_
#define SEALVOL_REGISTRY_API_LIMITS_H_

#include <cstddef>
#include <cstdint>

namespace sealvol::api {

inline constexpr uint64_t kMaxSmallBody = 64 << 10;  // tag moves
inline constexpr size_t kMaxMissingBatch = 10000;    // digests per query
inline constexpr uint64_t kMaxAnnotations = 64 << 10;

}  // namespace sealvol::api

#endif  // SEALVOL_REGISTRY_API_LIMITS_H_
