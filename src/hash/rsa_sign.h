// RSASSA-PKCS1-v1_5 with SHA-256 ("RS256"), over OpenSSL: what a Google
// service-account key signs its token requests with.
//
// Thread safety: reentrant functions.
#ifndef SEALVOL_HASH_RSA_SIGN_H_
#define SEALVOL_HASH_RSA_SIGN_H_

#include <string>
#include <string_view>

#include "base/status.h"

namespace sealvol {

// The signature of `data` under the PEM private key (PKCS#8 or PKCS#1).
// InvalidArgument when the key does not parse or is not RSA; the message
// never quotes the key.
Result<std::string> RsaSha256Sign(std::string_view pem_private_key,
                                  std::string_view data);

// True when `signature` is valid for `data` under the PEM public key.
bool RsaSha256Verify(std::string_view pem_public_key, std::string_view data,
                     std::string_view signature);

}  // namespace sealvol

#endif  // SEALVOL_HASH_RSA_SIGN_H_
