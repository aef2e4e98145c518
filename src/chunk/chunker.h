// FastCDC content-defined chunker (gear hash, normalized chunking), format
// version 1: min 256 KiB, average 1 MiB, max 4 MiB (docs/format.md).
//
// The chunker is a pure boundary finder: it does no I/O and owns no buffers.
// Feed it bytes in any pieces; the boundaries depend only on the bytes, never
// on how they were split. The gear table and every parameter are part of the
// on-disk format: changing them changes every digest.
//
// Thread safety: a Chunker holds the state of one stream; use one per thread.
#ifndef SEALVOL_CHUNK_CHUNKER_H_
#define SEALVOL_CHUNK_CHUNKER_H_

#include <array>
#include <cstddef>
#include <cstdint>

namespace sealvol {

struct ChunkParams {
  uint32_t min_size;
  uint32_t avg_size;  // a power of two
  uint32_t max_size;
};

// The only parameters format version 1 allows.
inline constexpr ChunkParams kChunkParamsV1{256 * 1024, 1024 * 1024,
                                            4 * 1024 * 1024};

// The 256-entry gear table: SplitMix64 outputs from seed kGearSeed.
const std::array<uint64_t, 256>& GearTable();
inline constexpr uint64_t kGearSeed = 0x7365616c766f6c31ULL;  // "sealvol1"

class Chunker {
 public:
  explicit Chunker(const ChunkParams& params = kChunkParamsV1);

  // Scans `data[0, len)` as the continuation of the current chunk. Returns how
  // many bytes belong to it. When the chunk ends inside `data`, *cut is set to
  // true, the chunk ends after the returned count, and the next call starts a
  // new chunk. Otherwise all `len` bytes were consumed and *cut is false. At
  // end of input, whatever was consumed since the last cut is the final chunk.
  size_t Next(const uint8_t* data, size_t len, bool* cut);

  // Forgets the current chunk (start of a new file).
  void Reset() {
    pos_ = 0;
    hash_ = 0;
  }

  // Bytes consumed since the last cut.
  uint64_t pending() const { return pos_; }

 private:
  ChunkParams params_;
  uint32_t normal_size_;  // where the strict mask gives way to the loose one
  uint64_t mask_strict_;  // used before normal_size_: fewer early cuts
  uint64_t mask_loose_;   // used after it: more cuts, fewer max-size chunks
  const uint64_t* gear_;
  uint64_t pos_ = 0;
  uint64_t hash_ = 0;
};

}  // namespace sealvol

#endif  // SEALVOL_CHUNK_CHUNKER_H_
