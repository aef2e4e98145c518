#include "chunk/chunker.h"

#include <bit>

namespace sealvol {
namespace {

std::array<uint64_t, 256> MakeGearTable() {
  std::array<uint64_t, 256> table{};
  uint64_t state = kGearSeed;
  for (auto& v : table) {
    state += 0x9e3779b97f4a7c15ULL;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    v = z ^ (z >> 31);
  }
  return table;
}

// A mask of `bits` ones in the top bits of the hash: with a gear hash the top
// bits depend on the last 64 bytes, the low bits only on the last few.
uint64_t TopMask(int bits) { return ~uint64_t{0} << (64 - bits); }

}  // namespace

const std::array<uint64_t, 256>& GearTable() {
  static const std::array<uint64_t, 256> table = MakeGearTable();
  return table;
}

Chunker::Chunker(const ChunkParams& params)
    : params_(params), gear_(GearTable().data()) {
  int bits = std::countr_zero(params.avg_size);
  // Normalized chunking, level 2: two more bits before the average point and
  // two fewer after it concentrate chunk sizes around the average.
  mask_strict_ = TopMask(bits + 2);
  mask_loose_ = TopMask(bits - 2);
  normal_size_ = params.avg_size;
}

size_t Chunker::Next(const uint8_t* data, size_t len, bool* cut) {
  *cut = false;
  size_t i = 0;
  uint64_t pos = pos_;
  uint64_t hash = hash_;
  // Below the minimum size no cut is possible, and the hash only needs its
  // last 64 bytes, so skip ahead without hashing.
  if (pos + 64 < params_.min_size) {
    uint64_t skip = params_.min_size - 64 - pos;
    if (skip >= len) {
      pos_ = pos + len;
      return len;
    }
    i = static_cast<size_t>(skip);
    pos += skip;
    hash = 0;
  }
  // Hash the last bytes before min_size so the state at min_size does not
  // depend on where the skip stopped.
  while (i < len && pos < params_.min_size) {
    hash = (hash << 1) + gear_[data[i]];
    ++i;
    ++pos;
  }
  while (i < len && pos < normal_size_) {
    hash = (hash << 1) + gear_[data[i]];
    ++i;
    ++pos;
    if ((hash & mask_strict_) == 0) goto found;
  }
  while (i < len && pos < params_.max_size) {
    hash = (hash << 1) + gear_[data[i]];
    ++i;
    ++pos;
    if ((hash & mask_loose_) == 0) goto found;
  }
  if (pos >= params_.max_size) goto found;
  pos_ = pos;
  hash_ = hash;
  return i;

found:
  *cut = true;
  pos_ = 0;
  hash_ = 0;
  return i;
}

}  // namespace sealvol
