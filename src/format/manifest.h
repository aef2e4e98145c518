// The version manifest (docs/format.md): canonical JSON whose SHA-256 is the
// version's digest. SerializeManifest produces the one canonical byte string
// for a tree; ParseManifest accepts exactly those bytes and nothing else
// (other spacing, unsorted or duplicate keys, unknown fields, bad paths,
// modes, sizes or symlinks are all Corruption).
//
// Thread safety: value types and reentrant functions.
#ifndef SEALVOL_FORMAT_MANIFEST_H_
#define SEALVOL_FORMAT_MANIFEST_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "chunk/chunker.h"
#include "hash/digest.h"

namespace sealvol {

inline constexpr std::string_view kManifestSchema = "sealvol.manifest.v1";
inline constexpr uint64_t kMaxManifestBytes = 64ull << 20;
inline constexpr uint64_t kMaxManifestEntries = 1ull << 20;
inline constexpr uint64_t kMaxFileSize = 1ull << 50;  // 1 PiB

enum class EntryType { kFile, kSymlink, kDir };

struct ManifestEntry {
  std::string path;
  EntryType type = EntryType::kFile;
  // Files only.
  bool executable = false;  // mode 755 rather than 644
  uint64_t size = 0;
  Digest sha256;                 // of the whole file
  std::optional<Digest> chunks;  // chunk index; absent for ≤ 1 chunk
  // Symlinks only.
  std::string target;

  bool operator==(const ManifestEntry&) const = default;
};

struct Manifest {
  std::vector<ManifestEntry> entries;  // sorted bytewise by path

  uint64_t TotalBytes() const;
  uint64_t FileCount() const;
  const ManifestEntry* Find(std::string_view path) const;
};

// Checks every rule of the format. InvalidArgument naming the first entry
// that breaks one.
Status ValidateManifest(const Manifest& m);

// Canonical bytes of a valid manifest; InvalidArgument if it is not valid.
Result<std::string> SerializeManifest(const Manifest& m);

// Strict parse; Corruption for anything that is not a canonical, valid v1
// manifest.
Result<Manifest> ParseManifest(std::string_view bytes);

// The same contract through a general JSON parser and a re-serialization
// check: slower, with the precise error messages. ParseManifest uses it
// whenever its direct reader of the canonical form gives up; tests and the
// fuzz target check that the two always agree.
Result<Manifest> ParseManifestReference(std::string_view bytes);

}  // namespace sealvol

#endif  // SEALVOL_FORMAT_MANIFEST_H_
