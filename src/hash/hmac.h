// HMAC-SHA256 over OpenSSL, for request signing (AWS SigV4, Azure Shared
// Key). Keys and results are raw bytes.
//
// Thread safety: reentrant free functions.
#ifndef SEALVOL_HASH_HMAC_H_
#define SEALVOL_HASH_HMAC_H_

#include <string>
#include <string_view>

namespace sealvol {

// The 32-byte HMAC-SHA256 of `data` under `key`.
std::string HmacSha256(std::string_view key, std::string_view data);

// Lowercase hex of raw bytes.
std::string HexEncode(std::string_view bytes);

}  // namespace sealvol

#endif  // SEALVOL_HASH_HMAC_H_
