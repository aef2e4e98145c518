// Digest: the SHA-256 that names every blob and version, as a value type.
//
// The only accepted text form is `sha256:` followed by 64 lowercase hex
// digits (docs/format.md). Parse rejects everything else, so a Digest that
// exists is always safe to put into a path or a URL.
//
// Thread safety: value type.
#ifndef SEALVOL_HASH_DIGEST_H_
#define SEALVOL_HASH_DIGEST_H_

#include <array>
#include <compare>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace sealvol {

class Digest {
 public:
  static constexpr size_t kSize = 32;
  static constexpr std::string_view kPrefix = "sha256:";

  Digest() { bytes_.fill(0); }
  explicit Digest(const std::array<uint8_t, kSize>& bytes) : bytes_(bytes) {}
  static Digest FromBytes(const uint8_t* p) {
    Digest d;
    std::memcpy(d.bytes_.data(), p, kSize);
    return d;
  }

  // Accepts exactly `sha256:<64 lowercase hex>`.
  static Result<Digest> Parse(std::string_view text);
  // Accepts exactly 64 lowercase hex digits (the manifest's `sha256` field).
  static Result<Digest> ParseHex(std::string_view hex);

  std::string ToString() const;  // "sha256:<hex>"
  std::string Hex() const;       // "<hex>"
  std::string Short() const { return Hex().substr(0, 12); }
  const std::array<uint8_t, kSize>& bytes() const { return bytes_; }

  auto operator<=>(const Digest&) const = default;
  bool operator==(const Digest&) const = default;

 private:
  std::array<uint8_t, kSize> bytes_;
};

struct DigestHash {
  size_t operator()(const Digest& d) const {
    size_t h;
    std::memcpy(&h, d.bytes().data(), sizeof(h));
    return h;
  }
};

}  // namespace sealvol

#endif  // SEALVOL_HASH_DIGEST_H_
