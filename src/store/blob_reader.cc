#include "store/blob_reader.h"

#include "format/envelope.h"

namespace sealvol {

Result<std::string> ReadBlob(BlobStore& store, const Digest& digest,
                             uint64_t exact_size, uint64_t max_size) {
  SV_ASSIGN_OR_RETURN(std::string envelope, store.Get(digest));
  return DecodeVerified(envelope, digest, exact_size, max_size);
}

Result<Manifest> ReadManifest(BlobStore& store, const Digest& digest) {
  SV_ASSIGN_OR_RETURN(std::string bytes, ReadBlob(store, digest));
  auto m = ParseManifest(bytes);
  if (!m) return m.error().WithContext("manifest " + digest.ToString());
  return m;
}

uint64_t ChunkIndexMaxBytes(const ManifestEntry& file) {
  return kChunkIndexHeaderSize +
         ChunkIndexMaxCount(file) * kChunkIndexEntrySize;
}

uint64_t ChunkIndexMaxCount(const ManifestEntry& file) {
  // An index has at most one entry per minimum-size chunk of the file, plus
  // the last one.
  return file.size / kChunkParamsV1.min_size + 2;
}

Result<std::vector<ChunkRef>> ParseFileChunks(const ManifestEntry& file,
                                              std::string_view index_bytes) {
  auto index = ParseChunkIndex(index_bytes, kChunkParamsV1.max_size,
                               ChunkIndexMaxCount(file));
  if (!index) {
    return index.error().WithContext("chunk index of '" + file.path + "'");
  }
  if (index->TotalSize() != file.size) {
    return Corruption("chunk index of '" + file.path + "' adds up to " +
                      std::to_string(index->TotalSize()) +
                      " bytes, but the file is " + std::to_string(file.size));
  }
  return std::move(index->chunks);
}

Result<std::vector<ChunkRef>> FileChunks(BlobStore& store,
                                         const ManifestEntry& file) {
  if (file.size == 0) return std::vector<ChunkRef>{};
  if (!file.chunks) {
    return std::vector<ChunkRef>{
        ChunkRef{file.sha256, static_cast<uint32_t>(file.size)}};
  }
  auto bytes =
      ReadBlob(store, *file.chunks, kUnknownSize, ChunkIndexMaxBytes(file));
  if (!bytes) {
    return bytes.error().WithContext("chunk index of '" + file.path + "'");
  }
  return ParseFileChunks(file, *bytes);
}

}  // namespace sealvol
