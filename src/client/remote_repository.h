// RemoteRepository: a Repository backed by a `sealvol serve` registry
// (docs/registry.md), so every command works the same against a remote.
// RemoteBlobStore is one volume's namespace of blobs, over the same API;
// mount and pull read through it, publish writes through it.
//
// Everything read is verified here as it is from a local store: manifests
// against their digest, blobs by ReadBlob's re-hash. The registry is
// trusted with nothing but availability.
//
// Thread safety: safe for concurrent use.
#ifndef SEALVOL_CLIENT_REMOTE_REPOSITORY_H_
#define SEALVOL_CLIENT_REMOTE_REPOSITORY_H_

#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>

#include "client/http_client.h"
#include "registry/repository.h"

namespace sealvol {

// The Status for a registry's error answer: 401/403 PermissionDenied, 404
// NotFound, 400/413 InvalidArgument (Corruption for a digest mismatch),
// 409/412 FailedPrecondition, anything else IOError. The message is the
// registry's own, prefixed with `what`.
Status StatusFromHttp(const HttpResponse& r, const std::string& what);

class RemoteBlobStore : public BlobStore {
 public:
  RemoteBlobStore(std::shared_ptr<HttpClient> client, std::string volume);

  // True when the namespace lacked the blob. The registry verifies the
  // bytes against `digest` before keeping them.
  Result<bool> Put(const Digest& digest, std::string_view envelope) override;
  Status Sync() override { return Status::Ok(); }  // the registry syncs
  Result<std::string> Get(const Digest& digest) override;
  Result<bool> Has(const Digest& digest) override;
  // The registry refreshes a blob's age when a Missing query finds it.
  Status Keep(const Digest&) override { return Status::Ok(); }
  Status Delete(const Digest& digest) override;
  Status List(const std::function<void(const BlobInfo&)>& fn) override;

  // Which of `digests` the namespace lacks, in batches of the API's limit.
  Result<std::vector<Digest>> Missing(
      const std::vector<Digest>& digests) override;

 private:
  std::string BlobPath(const Digest& d) const;

  std::shared_ptr<HttpClient> client_;
  std::string volume_;
};

class RemoteRepository : public Repository {
 public:
  explicit RemoteRepository(std::shared_ptr<HttpClient> client)
      : client_(std::move(client)) {}

  Result<BlobStore*> Blobs(const std::string& volume) override;
  // `compress` is the registry's choice; annotations travel in a header.
  Result<Digest> CommitVersion(const std::string& volume,
                               std::string_view manifest,
                               const std::string& annotations,
                               CompressPolicy compress) override;
  Result<Digest> Resolve(const Ref& ref) override;
  Result<Manifest> LoadManifest(const std::string& volume,
                                const Digest& digest) override;
  // `actor` is ignored: the registry records the token's name.
  Status MoveTag(const std::string& volume, const std::string& tag,
                 const std::optional<Digest>& to, const TagExpect& expect,
                 const std::string& actor, const std::string& note) override;
  Result<VersionRecord> GetVersion(const std::string& volume,
                                   const Digest& digest) override;
  Result<std::vector<VersionRecord>> ListVersions(
      const std::string& volume) override;
  Result<std::vector<std::string>> ListVolumes() override;
  Result<Digest> GetTag(const std::string& volume,
                        const std::string& tag) override;
  Result<std::vector<TagRecord>> ListTags(const std::string& volume) override;
  Result<std::vector<TagMove>> TagHistory(const std::string& volume,
                                          const std::string& tag) override;
  // Pins (client/remote_pins.cc). `actor` is ignored, as for tags.
  Status SetPin(const std::string& deployment, const std::string& path,
                const std::string& volume, const Digest& digest,
                const std::string& actor, const std::string& reason) override;
  Result<std::vector<PinRecord>> ListPins(
      const std::string& deployment) override;
  Result<std::vector<PinMove>> PinHistory(
      const std::string& deployment) override;
  Result<std::vector<PinRecord>> PinsOfVolume(
      const std::string& volume) override;

 private:
  // GET /v1/deployments/{deployment}: its pins and history.
  Result<nlohmann::json> DeploymentDoc(const std::string& deployment);

  // The `field` list ("versions", "tags" or "pins") of GET
  // /v1/volumes/{volume}.
  Result<nlohmann::json> VolumeList(const std::string& volume,
                                    const std::string& field);

  std::shared_ptr<HttpClient> client_;
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<RemoteBlobStore>> blobs_;
};

}  // namespace sealvol

#endif  // SEALVOL_CLIENT_REMOTE_REPOSITORY_H_
