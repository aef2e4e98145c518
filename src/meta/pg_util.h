// Internal to meta/: reading PgMetaStore's text-format rows.
//
// Thread safety: reentrant functions over values.
#ifndef SEALVOL_META_PG_UTIL_H_
#define SEALVOL_META_PG_UTIL_H_

#include <cstdlib>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "hash/digest.h"
#include "meta/pg_conn.h"

namespace sealvol::pg_util {

inline std::string Now() { return std::to_string(::time(nullptr)); }

inline std::string Text(const pg::Rows& r, size_t row, size_t col) {
  return r.rows[row][col].value_or("");
}

inline int64_t Int(const pg::Rows& r, size_t row, size_t col) {
  return std::strtoll(Text(r, row, col).c_str(), nullptr, 10);
}

inline Result<Digest> DigestAt(const pg::Rows& r, size_t row, size_t col) {
  auto d = Digest::Parse(Text(r, row, col));
  if (!d) return Corruption("metadata database holds a bad digest");
  return *d;
}

inline Result<std::optional<Digest>> OptDigestAt(const pg::Rows& r, size_t row,
                                                 size_t col) {
  if (!r.rows[row][col]) return std::optional<Digest>();
  SV_ASSIGN_OR_RETURN(Digest d, DigestAt(r, row, col));
  return std::optional<Digest>(d);
}

inline pg::Param OptText(const std::optional<Digest>& d) {
  return d ? pg::Param(d->ToString()) : std::nullopt;
}

// A PostgreSQL text[] literal of the digests (their text has no character
// that needs quoting).
inline std::string TextArray(const std::vector<Digest>& digests) {
  std::string out = "{";
  for (size_t i = 0; i < digests.size(); ++i) {
    if (i) out += ',';
    out += digests[i].ToString();
  }
  return out + "}";
}

}  // namespace sealvol::pg_util

#endif  // SEALVOL_META_PG_UTIL_H_
