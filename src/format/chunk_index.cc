#include "format/chunk_index.h"

#include <cstring>

namespace sealvol {
namespace {

constexpr char kMagic[4] = {'S', 'V', 'I', 'X'};
constexpr uint32_t kVersion = 1;

template <typename T>
void PutLE(std::string* out, T v) {
  for (size_t i = 0; i < sizeof(T); ++i) {
    out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
}

template <typename T>
T GetLE(const char* p) {
  T v = 0;
  for (size_t i = 0; i < sizeof(T); ++i) {
    v |= static_cast<T>(static_cast<uint8_t>(p[i])) << (8 * i);
  }
  return v;
}

}  // namespace

uint64_t ChunkIndex::TotalSize() const {
  uint64_t total = 0;
  for (const auto& c : chunks) total += c.length;
  return total;
}

std::string SerializeChunkIndex(const ChunkIndex& index) {
  std::string out;
  out.reserve(kChunkIndexHeaderSize +
              index.chunks.size() * kChunkIndexEntrySize);
  out.append(kMagic, 4);
  PutLE<uint32_t>(&out, kVersion);
  PutLE<uint64_t>(&out, index.chunks.size());
  for (const auto& c : index.chunks) {
    out.append(reinterpret_cast<const char*>(c.digest.bytes().data()),
               Digest::kSize);
    PutLE<uint32_t>(&out, c.length);
  }
  return out;
}

Result<ChunkIndex> ParseChunkIndex(std::string_view bytes, uint32_t max_chunk,
                                   uint64_t max_count) {
  if (bytes.size() < kChunkIndexHeaderSize ||
      std::memcmp(bytes.data(), kMagic, 4) != 0) {
    return Corruption("chunk index does not start with SVIX");
  }
  uint32_t version = GetLE<uint32_t>(bytes.data() + 4);
  if (version != kVersion) {
    return Corruption("chunk index format version " + std::to_string(version) +
                      " is not supported (want 1)");
  }
  uint64_t count = GetLE<uint64_t>(bytes.data() + 8);
  if (count > max_count) {
    return Corruption("chunk index claims " + std::to_string(count) +
                      " chunks, more than the limit of " +
                      std::to_string(max_count));
  }
  if (count < 2) {
    return Corruption("chunk index lists " + std::to_string(count) +
                      " chunks; a file of one chunk has no index");
  }
  if (bytes.size() - kChunkIndexHeaderSize != count * kChunkIndexEntrySize) {
    return Corruption("chunk index of " + std::to_string(bytes.size()) +
                      " bytes does not hold exactly " + std::to_string(count) +
                      " entries");
  }
  ChunkIndex index;
  index.chunks.reserve(count);
  const char* p = bytes.data() + kChunkIndexHeaderSize;
  for (uint64_t i = 0; i < count; ++i, p += kChunkIndexEntrySize) {
    ChunkRef ref{Digest::FromBytes(reinterpret_cast<const uint8_t*>(p)),
                 GetLE<uint32_t>(p + Digest::kSize)};
    if (ref.length == 0 || ref.length > max_chunk) {
      return Corruption("chunk " + std::to_string(i) + " has length " +
                        std::to_string(ref.length) + ", outside [1, " +
                        std::to_string(max_chunk) + "]");
    }
    index.chunks.push_back(ref);
  }
  return index;
}

}  // namespace sealvol
