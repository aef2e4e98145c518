// Incremental SHA-256 over OpenSSL EVP (uses SHA-NI where the CPU has it).
//
// Thread safety: one Sha256 object per thread; Sha256::Of is reentrant.
#ifndef SEALVOL_HASH_SHA256_H_
#define SEALVOL_HASH_SHA256_H_

#include <string_view>

#include "hash/digest.h"

namespace sealvol {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void Update(std::string_view data);
  void Update(const void* data, size_t len);
  // Returns the digest of everything updated so far and resets the hasher.
  Digest Finish();

  static Digest Of(std::string_view data);

 private:
  void* ctx_;  // EVP_MD_CTX*; OpenSSL types stay inside hash/
};

}  // namespace sealvol

#endif  // SEALVOL_HASH_SHA256_H_
