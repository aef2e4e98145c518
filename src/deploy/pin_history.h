// Walking a deployment's pin history back (sealvol rollback).
//
// The history of one path is replayed as a stack of the digests it ran: a
// pin by lock or up pushes its digest; a rollback to the digest just below
// the top pops the top (so a second rollback walks one step further back);
// a rollback anywhere else (--to) pushes like a lock. A change of volume at
// the path starts the stack afresh.
//
// Thread safety: reentrant free functions over values.
#ifndef SEALVOL_DEPLOY_PIN_HISTORY_H_
#define SEALVOL_DEPLOY_PIN_HISTORY_H_

#include <optional>
#include <string>
#include <vector>

#include "meta/meta_store.h"

namespace sealvol {

inline constexpr const char* kPinByLock = "lock";
inline constexpr const char* kPinByUp = "up";
inline constexpr const char* kPinByRollback = "rollback";

// The digests `path` ran, oldest first, for `volume`, ending with `current`
// when given (the spec may hold a digest the registry has not seen yet).
std::vector<Digest> PinStack(const std::vector<PinMove>& history,
                             const std::string& path, const std::string& volume,
                             const std::optional<Digest>& current);

// The digest a rollback from `current` returns to; nullopt when the history
// holds nothing earlier.
std::optional<Digest> PreviousPin(const std::vector<PinMove>& history,
                                  const std::string& path,
                                  const std::string& volume,
                                  const std::optional<Digest>& current);

}  // namespace sealvol

#endif  // SEALVOL_DEPLOY_PIN_HISTORY_H_
