// Registry: the rules every store of sealvol keeps, over a BlobStore and a
// MetaStore.
//  - A version is committed only when its manifest parses, and every blob it
//    names (chunk indexes, chunks) is present; the manifest blob is stored
//    first, the version record last, so a crash at any point leaves no
//    visible version.
//  - Tags move by compare-and-swap and every move is kept in history.
//  - GC marks from every version and sweeps only blobs older than a grace
//    period, so it never races a publish that is still storing blobs (a
//    publish refreshes the age of every blob it reuses: BlobStore::Keep).
//
// Thread safety: as safe as the stores it wraps (both are thread safe).
#ifndef SEALVOL_REGISTRY_REGISTRY_H_
#define SEALVOL_REGISTRY_REGISTRY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "format/envelope.h"
#include "format/manifest.h"
#include "format/names.h"
#include "meta/meta_store.h"
#include "store/blob_store.h"

namespace sealvol {

struct GcStats {
  uint64_t versions = 0;       // roots marked from
  uint64_t live_blobs = 0;     // referenced by some version
  uint64_t removed = 0;        // unreferenced and old enough (or would be)
  uint64_t removed_bytes = 0;  // stored bytes of those
  uint64_t young = 0;          // unreferenced but inside the grace period
};

class Registry {
 public:
  Registry(BlobStore* blobs, MetaStore* meta) : blobs_(blobs), meta_(meta) {}

  BlobStore& blobs() { return *blobs_; }
  MetaStore& meta() { return *meta_; }

  // Commits `manifest` as a version of `volume` and returns its digest.
  // Corruption when the manifest is not a canonical v1 manifest;
  // FailedPrecondition naming the missing blobs when any is absent.
  // Idempotent.
  Result<Digest> CommitVersion(const std::string& volume,
                               std::string_view manifest,
                               const std::string& annotations,
                               CompressPolicy compress);

  // A tag ref becomes the digest it points at; a digest ref is checked to
  // be a version of its volume. NotFound otherwise.
  Result<Digest> Resolve(const Ref& ref);

  // The verified manifest of a version of `volume`.
  Result<Manifest> LoadManifest(const std::string& volume,
                                const Digest& digest);

  // Validates names, then MetaStore::MoveTag.
  Status MoveTag(const std::string& volume, const std::string& tag,
                 const std::optional<Digest>& to, const TagExpect& expect,
                 const std::string& actor, const std::string& note);

  // Removes blobs that no version references and that were last written or
  // kept more than `grace_seconds` before `now`. With `dry_run` nothing is
  // removed. Fails (removing nothing) when any version cannot be read in
  // full: GC never guesses what is live.
  Result<GcStats> CollectGarbage(int64_t grace_seconds, bool dry_run,
                                 int64_t now);

 private:
  // The blobs a manifest names that the store lacks (at most `limit`).
  Result<std::vector<std::string>> MissingBlobs(const Manifest& m,
                                                size_t limit);

  BlobStore* blobs_;
  MetaStore* meta_;
};

}  // namespace sealvol

#endif  // SEALVOL_REGISTRY_REGISTRY_H_
