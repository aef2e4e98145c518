// Base64 (RFC 4648, standard alphabet, with padding), for the cloud APIs
// that carry keys, checksums and signatures in it.
//
// Thread safety: reentrant functions.
#ifndef SEALVOL_BASE_BASE64_H_
#define SEALVOL_BASE_BASE64_H_

#include <optional>
#include <string>
#include <string_view>

namespace sealvol {

std::string Base64Encode(std::string_view bytes);
// nullopt unless `text` is canonical padded base64 (no whitespace).
std::optional<std::string> Base64Decode(std::string_view text);

}  // namespace sealvol

#endif  // SEALVOL_BASE_BASE64_H_
