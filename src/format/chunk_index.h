// Chunk index: the list of chunks of a file of more than one chunk, stored
// as a blob (docs/format.md). Little-endian: magic "SVIX", u32 version (1),
// u64 count, then per chunk its 32-byte SHA-256 and u32 length. Offsets are
// the running sum of lengths.
//
// Thread safety: value types and reentrant functions.
#ifndef SEALVOL_FORMAT_CHUNK_INDEX_H_
#define SEALVOL_FORMAT_CHUNK_INDEX_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "hash/digest.h"

namespace sealvol {

struct ChunkRef {
  Digest digest;
  uint32_t length = 0;
  bool operator==(const ChunkRef&) const = default;
};

struct ChunkIndex {
  std::vector<ChunkRef> chunks;
  uint64_t TotalSize() const;
};

inline constexpr size_t kChunkIndexHeaderSize = 16;
inline constexpr size_t kChunkIndexEntrySize = 36;

std::string SerializeChunkIndex(const ChunkIndex& index);

// Strict: exact size for the count, at least two chunks, every length in
// [1, max_chunk], count ≤ max_count. Anything else is Corruption.
Result<ChunkIndex> ParseChunkIndex(std::string_view bytes, uint32_t max_chunk,
                                   uint64_t max_count);

}  // namespace sealvol

#endif  // SEALVOL_FORMAT_CHUNK_INDEX_H_
