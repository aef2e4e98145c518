// Repository: everything a command can ask of a store of versions, whether
// it is the embedded store on this machine (Registry) or a remote registry
// (client/RemoteRepository). Commands are written once, against this.
//
// Thread safety: implementations are safe for concurrent use.
#ifndef SEALVOL_REGISTRY_REPOSITORY_H_
#define SEALVOL_REGISTRY_REPOSITORY_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "format/envelope.h"
#include "format/manifest.h"
#include "format/names.h"
#include "meta/meta_store.h"
#include "store/blob_store.h"

namespace sealvol {

class Repository {
 public:
  virtual ~Repository() = default;

  // The blobs as seen from `volume` (a remote registry shows each
  // namespace only the blobs linked to it). Lives as long as this object.
  virtual Result<BlobStore*> Blobs(const std::string& volume) = 0;

  // Commits `manifest` as a version of `volume` and returns its digest.
  // Corruption when the manifest is not a canonical v1 manifest;
  // FailedPrecondition naming the missing blobs when any is absent.
  // Idempotent. `compress` applies where the manifest blob is stored here.
  virtual Result<Digest> CommitVersion(const std::string& volume,
                                       std::string_view manifest,
                                       const std::string& annotations,
                                       CompressPolicy compress) = 0;

  // A tag ref becomes the digest it points at; a digest ref is checked to
  // be a version of its volume. NotFound otherwise.
  virtual Result<Digest> Resolve(const Ref& ref) = 0;

  // The verified manifest of a version of `volume`.
  virtual Result<Manifest> LoadManifest(const std::string& volume,
                                        const Digest& digest) = 0;

  // Validates names, then moves the tag by compare-and-swap (see
  // MetaStore::MoveTag for the outcomes).
  virtual Status MoveTag(const std::string& volume, const std::string& tag,
                         const std::optional<Digest>& to,
                         const TagExpect& expect, const std::string& actor,
                         const std::string& note) = 0;

  // Listings, as MetaStore defines them.
  virtual Result<VersionRecord> GetVersion(const std::string& volume,
                                           const Digest& digest) = 0;
  virtual Result<std::vector<VersionRecord>> ListVersions(
      const std::string& volume) = 0;
  virtual Result<std::vector<std::string>> ListVolumes() = 0;
  virtual Result<Digest> GetTag(const std::string& volume,
                                const std::string& tag) = 0;
  virtual Result<std::vector<TagRecord>> ListTags(
      const std::string& volume) = 0;
  virtual Result<std::vector<TagMove>> TagHistory(const std::string& volume,
                                                  const std::string& tag) = 0;

  // Deployments' pins, as MetaStore defines them, after validating the
  // deployment name, the mount path and the volume name. A remote registry
  // records the token's name as the actor and shows only pins on volumes
  // the token may read.
  virtual Status SetPin(const std::string& deployment, const std::string& path,
                        const std::string& volume, const Digest& digest,
                        const std::string& actor,
                        const std::string& reason) = 0;
  virtual Result<std::vector<PinRecord>> ListPins(
      const std::string& deployment) = 0;
  virtual Result<std::vector<PinMove>> PinHistory(
      const std::string& deployment) = 0;
  virtual Result<std::vector<PinRecord>> PinsOfVolume(
      const std::string& volume) = 0;
};

}  // namespace sealvol

#endif  // SEALVOL_REGISTRY_REPOSITORY_H_
