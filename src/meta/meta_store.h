// MetaStore: the registry's small, transactional state: volumes, versions
// (with annotations), tags and every tag move, deployments' pins and every
// pin move, and which namespaces may see which blobs (links). Blobs live in a
// BlobStore; a MetaStore names them only by digest.
//
// Implementations: SqliteMetaStore (embedded), PgMetaStore (PostgreSQL,
// for several registry replicas). Every method is atomic; a method that
// fails changes nothing.
//
// Thread safety: safe for concurrent use from many threads, and from many
// processes sharing one database.
#ifndef SEALVOL_META_META_STORE_H_
#define SEALVOL_META_META_STORE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "hash/digest.h"

namespace sealvol {

struct VersionRecord {
  std::string volume;
  Digest digest;
  int64_t created = 0;  // unix seconds, when first committed
  uint64_t files = 0;
  uint64_t bytes = 0;
  std::string annotations;  // a JSON object: who, when, from where
};

struct TagRecord {
  std::string tag;
  Digest digest;
  int64_t updated = 0;
};

struct TagMove {
  std::optional<Digest> from;  // absent when the tag was created
  std::optional<Digest> to;    // absent when the tag was removed
  int64_t at = 0;
  std::string actor;
  std::string note;
};

// A deployment's pin: the exact version it mounts at one path. A
// deployment is identified by name; within it, by the path (the mount path
// written in its spec), so one volume may be mounted twice.
struct PinRecord {
  std::string deployment;
  std::string path;
  std::string volume;
  Digest digest;
  int64_t updated = 0;
};

// One change of a pin. `reason` says which command made it ("lock",
// "rollback", "up"); rollback reads it to walk back through history.
struct PinMove {
  std::string path;
  std::string volume;
  std::optional<Digest> from;  // absent for the first pin of this path
  Digest to;
  int64_t at = 0;
  std::string actor;
  std::string reason;
};

// What a tag move requires of the tag's current value.
struct TagExpect {
  enum class Kind { kAny, kAbsent, kDigest };
  Kind kind = Kind::kAny;
  Digest digest;
  static TagExpect Any() { return {}; }
  static TagExpect Absent() { return {Kind::kAbsent, {}}; }
  static TagExpect Is(const Digest& d) { return {Kind::kDigest, d}; }
};

// The compare-and-swap rule every MetaStore applies to a move of tag `name`
// (VOLUME:TAG) from its current value `from` to `to`: FailedPrecondition
// naming the current value when `expect` does not hold, NotFound when
// removing a tag that does not exist; else true when the move changes the
// tag, false when it already has that value (nothing to record).
inline Result<bool> CheckTagMove(const std::string& name,
                                 const std::optional<Digest>& from,
                                 const std::optional<Digest>& to,
                                 const TagExpect& expect) {
  std::string now_at = from ? from->ToString() : std::string("(no tag)");
  if (expect.kind == TagExpect::Kind::kAbsent && from) {
    return FailedPrecondition("tag " + name + " already exists at " + now_at);
  }
  if (expect.kind == TagExpect::Kind::kDigest && from != expect.digest) {
    return FailedPrecondition("tag " + name + " is at " + now_at +
                              ", not the expected " + expect.digest.ToString());
  }
  if (!to && !from) return NotFound("no tag '" + name + "' to remove");
  return to != from;
}

// Held by a garbage collector while it runs; dropping it lets the next one
// start.
class GcLease {
 public:
  virtual ~GcLease() = default;
};

class MetaStore {
 public:
  virtual ~MetaStore() = default;

  // Records a version (creating its volume). Idempotent: recording a version
  // that exists keeps the first record and returns OK.
  virtual Status AddVersion(const VersionRecord& v) = 0;

  // NotFound when the volume has no such version.
  virtual Result<VersionRecord> GetVersion(const std::string& volume,
                                           const Digest& digest) = 0;
  // Oldest first. NotFound when the volume does not exist.
  virtual Result<std::vector<VersionRecord>> ListVersions(
      const std::string& volume) = 0;
  virtual Result<std::vector<std::string>> ListVolumes() = 0;

  // NotFound when the tag does not exist.
  virtual Result<Digest> GetTag(const std::string& volume,
                                const std::string& tag) = 0;
  virtual Result<std::vector<TagRecord>> ListTags(
      const std::string& volume) = 0;

  // Points `tag` at `to` (or removes it when `to` is empty) if its current
  // value matches `expect`, and appends the move to the tag's history in the
  // same transaction. FailedPrecondition naming the current value when it
  // does not match; NotFound when `to` is not a version of the volume, or
  // when removing a tag that does not exist. Moving a tag to the digest it
  // already has succeeds and records nothing.
  virtual Status MoveTag(const std::string& volume, const std::string& tag,
                         const std::optional<Digest>& to,
                         const TagExpect& expect, const std::string& actor,
                         const std::string& note) = 0;

  // Oldest first.
  virtual Result<std::vector<TagMove>> TagHistory(const std::string& volume,
                                                  const std::string& tag) = 0;

  // Pins `deployment` at `path` to a version of `volume` and appends the
  // move to the deployment's history in the same transaction. NotFound when
  // `digest` is not a version of `volume`. Pinning the digest (and volume)
  // a path already has succeeds and records nothing.
  virtual Status SetPin(const std::string& deployment, const std::string& path,
                        const std::string& volume, const Digest& digest,
                        const std::string& actor,
                        const std::string& reason) = 0;
  // The deployment's current pins by path; empty when it has none.
  virtual Result<std::vector<PinRecord>> ListPins(
      const std::string& deployment) = 0;
  // Every pin move of the deployment, oldest first.
  virtual Result<std::vector<PinMove>> PinHistory(
      const std::string& deployment) = 0;
  // Every current pin on a version of `volume` (for listings).
  virtual Result<std::vector<PinRecord>> PinsOfVolume(
      const std::string& volume) = 0;

  // Every committed version of every volume: the roots GC marks from.
  virtual Result<std::vector<Digest>> AllVersionDigests() = 0;

  // Namespace links: a registry shows a blob through a namespace (the first
  // segment of a volume name) only once it is linked there, by an upload or
  // a commit in that namespace. Linking is idempotent.
  virtual Status LinkBlobs(const std::string& ns,
                           const std::vector<Digest>& digests) = 0;
  // Those of `digests` not linked in `ns`, in the order given.
  virtual Result<std::vector<Digest>> UnlinkedBlobs(
      const std::string& ns, const std::vector<Digest>& digests) = 0;

  // The store-wide collector lock: one GC at a time over this metadata, in
  // every process and replica that shares it. FailedPrecondition when
  // another collector holds it.
  virtual Result<std::unique_ptr<GcLease>> LockGc() = 0;
};

}  // namespace sealvol

#endif  // SEALVOL_META_META_STORE_H_
