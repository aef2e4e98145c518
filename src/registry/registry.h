// Registry: the rules every store of sealvol keeps, over a BlobStore and a
// MetaStore.
//  - A version is committed only when its manifest parses, and every blob it
//    names (chunk indexes, chunks) is present; the manifest blob is stored
//    first, the version record last, so a crash at any point leaves no
//    visible version.
//  - Committing links every blob the version names to the volume's
//    namespace (MetaStore::LinkBlobs), so a registry serving this store
//    shows them through that namespace.
//  - Tags move by compare-and-swap and every move is kept in history.
//  - GC marks from every version (tags and pins point at versions) and
//    sweeps only blobs older than a grace period, so it never races a
//    publish that is still storing blobs (a publish refreshes the age of
//    every blob it reuses: BlobStore::Keep). One collector runs at a time
//    across every process sharing the MetaStore (MetaStore::LockGc).
//
// Thread safety: as safe as the stores it wraps (both are thread safe).
#ifndef SEALVOL_REGISTRY_REGISTRY_H_
#define SEALVOL_REGISTRY_REGISTRY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "registry/repository.h"

namespace sealvol {

struct GcStats {
  uint64_t versions = 0;       // roots marked from
  uint64_t live_blobs = 0;     // referenced by some version
  uint64_t removed = 0;        // unreferenced and old enough (or would be)
  uint64_t removed_bytes = 0;  // stored bytes of those
  uint64_t young = 0;          // unreferenced but inside the grace period
};

class Registry : public Repository {
 public:
  Registry(BlobStore* blobs, MetaStore* meta) : blobs_(blobs), meta_(meta) {}

  BlobStore& blobs() { return *blobs_; }
  MetaStore& meta() { return *meta_; }

  // Repository. Blobs() is the whole store: this machine trusts itself.
  Result<BlobStore*> Blobs(const std::string&) override { return blobs_; }
  Result<Digest> CommitVersion(const std::string& volume,
                               std::string_view manifest,
                               const std::string& annotations,
                               CompressPolicy compress) override;
  Result<Digest> Resolve(const Ref& ref) override;
  Result<Manifest> LoadManifest(const std::string& volume,
                                const Digest& digest) override;
  Status MoveTag(const std::string& volume, const std::string& tag,
                 const std::optional<Digest>& to, const TagExpect& expect,
                 const std::string& actor, const std::string& note) override;
  Result<VersionRecord> GetVersion(const std::string& volume,
                                   const Digest& digest) override {
    return meta_->GetVersion(volume, digest);
  }
  Result<std::vector<VersionRecord>> ListVersions(
      const std::string& volume) override {
    return meta_->ListVersions(volume);
  }
  Result<std::vector<std::string>> ListVolumes() override {
    return meta_->ListVolumes();
  }
  Result<Digest> GetTag(const std::string& volume,
                        const std::string& tag) override {
    return meta_->GetTag(volume, tag);
  }
  Result<std::vector<TagRecord>> ListTags(const std::string& volume) override {
    return meta_->ListTags(volume);
  }
  Result<std::vector<TagMove>> TagHistory(const std::string& volume,
                                          const std::string& tag) override {
    return meta_->TagHistory(volume, tag);
  }
  Status SetPin(const std::string& deployment, const std::string& path,
                const std::string& volume, const Digest& digest,
                const std::string& actor, const std::string& reason) override;
  Result<std::vector<PinRecord>> ListPins(
      const std::string& deployment) override;
  Result<std::vector<PinMove>> PinHistory(
      const std::string& deployment) override;
  Result<std::vector<PinRecord>> PinsOfVolume(
      const std::string& volume) override;

  // Links every blob of every committed version to its volume's namespace
  // where the version's manifest is not linked yet (stores committed to
  // before links existed). Returns the number of versions linked.
  Result<uint64_t> LinkUnlinkedVersions();

  // Removes blobs that no version references and that were last written or
  // kept more than `grace_seconds` before `now`. With `dry_run` nothing is
  // removed. Fails (removing nothing) when any version cannot be read in
  // full: GC never guesses what is live. FailedPrecondition when another
  // collector is running.
  Result<GcStats> CollectGarbage(int64_t grace_seconds, bool dry_run,
                                 int64_t now);

 private:
  // The blobs a manifest names that the store lacks (at most `limit`,
  // described), and every blob it names in `all`.
  Result<std::vector<std::string>> MissingBlobs(const Manifest& m, size_t limit,
                                                std::vector<Digest>* all);

  BlobStore* blobs_;
  MetaStore* meta_;
};

}  // namespace sealvol

#endif  // SEALVOL_REGISTRY_REGISTRY_H_
