// Blob envelope: every stored blob is one codec byte followed by its payload
// (docs/format.md). Codec 0 is raw, 1 is zstd. A blob's digest is always the
// SHA-256 of the decoded bytes, so changing the codec never changes a name.
//
// Decoding is capped: the caller says how many bytes it expects at most, and
// a payload that would decode to more is rejected as corruption before the
// memory is spent. DecodeVerified also re-hashes, so its output is never
// unverified.
//
// Thread safety: free functions, reentrant.
#ifndef SEALVOL_FORMAT_ENVELOPE_H_
#define SEALVOL_FORMAT_ENVELOPE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"
#include "hash/digest.h"

namespace sealvol {

enum class Codec : uint8_t { kRaw = 0, kZstd = 1 };

enum class CompressPolicy {
  kNone,  // always raw
  kZstd,  // always zstd
  kAuto,  // zstd only when it saves at least 5% of the bytes
};

Result<CompressPolicy> ParseCompressPolicy(std::string_view text);

// Encodes `plain` into an envelope. zstd runs at level 1: on model weights
// higher levels cost time and save nothing more (BENCHMARKS.md).
std::string EncodeEnvelope(std::string_view plain, CompressPolicy policy);

// Decodes an envelope, refusing output larger than `max_size` bytes.
// Corruption for an unknown codec, a bad zstd frame, or too much output.
Result<std::string> DecodeEnvelope(std::string_view envelope,
                                   uint64_t max_size);

// Decodes and checks that the bytes hash to `digest` (and, when
// `exact_size` is not kUnknownSize, that there are exactly that many).
inline constexpr uint64_t kUnknownSize = ~uint64_t{0};
Result<std::string> DecodeVerified(std::string_view envelope,
                                   const Digest& digest, uint64_t exact_size,
                                   uint64_t max_size);

}  // namespace sealvol

#endif  // SEALVOL_FORMAT_ENVELOPE_H_
