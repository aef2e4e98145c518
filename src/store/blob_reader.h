// Verified reads through any BlobStore: every byte these functions return
// has been decoded with a size cap and re-hashed against its digest.
//
// Thread safety: reentrant; the store must be safe for concurrent use.
#ifndef SEALVOL_STORE_BLOB_READER_H_
#define SEALVOL_STORE_BLOB_READER_H_

#include <vector>

#include "format/chunk_index.h"
#include "format/envelope.h"
#include "format/manifest.h"
#include "store/blob_store.h"

namespace sealvol {

// One blob's decoded, verified bytes. NotFound when absent, Corruption when
// the stored bytes do not decode to `digest` (of exactly `exact_size` bytes
// when that is given).
Result<std::string> ReadBlob(BlobStore& store, const Digest& digest,
                             uint64_t exact_size = kUnknownSize,
                             uint64_t max_size = kMaxManifestBytes);

// The verified, parsed manifest stored under `digest`.
Result<Manifest> ReadManifest(BlobStore& store, const Digest& digest);

// A file entry's chunks: its chunk index (read, verified, and checked to add
// up to the file's size), or its one chunk, or none for an empty file.
Result<std::vector<ChunkRef>> FileChunks(BlobStore& store,
                                         const ManifestEntry& file);

// The parts of FileChunks, for readers that fetch the index blob their own
// way (the mount's cache tiers): the most bytes and entries a file's index
// may have, and the verified index bytes parsed and checked against the file.
uint64_t ChunkIndexMaxBytes(const ManifestEntry& file);
uint64_t ChunkIndexMaxCount(const ManifestEntry& file);
Result<std::vector<ChunkRef>> ParseFileChunks(const ManifestEntry& file,
                                              std::string_view index_bytes);

}  // namespace sealvol

#endif  // SEALVOL_STORE_BLOB_READER_H_
