#include "hash/digest.h"

namespace sealvol {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;  // uppercase is rejected on purpose: one spelling per digest
}

std::string Printable(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 80)) {
    out += (c >= 0x20 && c < 0x7f) ? c : '?';
  }
  if (s.size() > 80) out += "...";
  return out;
}

}  // namespace

Result<Digest> Digest::ParseHex(std::string_view hex) {
  if (hex.size() != 2 * kSize) {
    return InvalidArgument("bad digest '" + Printable(hex) +
                           "': want 64 lowercase hex digits");
  }
  std::array<uint8_t, kSize> bytes;
  for (size_t i = 0; i < kSize; ++i) {
    int hi = HexValue(hex[2 * i]);
    int lo = HexValue(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      return InvalidArgument("bad digest '" + Printable(hex) +
                             "': want 64 lowercase hex digits");
    }
    bytes[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return Digest(bytes);
}

Result<Digest> Digest::Parse(std::string_view text) {
  if (text.substr(0, kPrefix.size()) != kPrefix) {
    return InvalidArgument("bad digest '" + Printable(text) +
                           "': want sha256:<64 lowercase hex digits>");
  }
  return ParseHex(text.substr(kPrefix.size()));
}

std::string Digest::Hex() const {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(2 * kSize, '0');
  for (size_t i = 0; i < kSize; ++i) {
    out[2 * i] = kHex[bytes_[i] >> 4];
    out[2 * i + 1] = kHex[bytes_[i] & 15];
  }
  return out;
}

std::string Digest::ToString() const { return std::string(kPrefix) + Hex(); }

}  // namespace sealvol
