// Where a registry keeps its state when it is not the embedded store alone:
// blobs in an S3-compatible bucket (`--blobs s3://BUCKET/PREFIX`) and/or
// metadata in PostgreSQL (`--meta postgres://...`), each falling back to the
// embedded store's half. `sealvol serve` and `sealvol gc` share these flags
// (docs/scale-out.md).
//
// Thread safety: the stores are thread safe; the object is built and
// destroyed on the main thread.
#ifndef SEALVOL_CLI_BACKENDS_H_
#define SEALVOL_CLI_BACKENDS_H_

#include <memory>
#include <string>

#include "cli/context.h"
#include "store/s3_blob_store.h"

namespace sealvol::cli {

struct BackendFlags {
  std::string blobs;     // "" (the store's directory) or s3://BUCKET/PREFIX
  std::string meta;      // "" (the store's meta.db) or postgres://...
  std::string endpoint;  // S3 endpoint; $AWS_ENDPOINT_URL_S3, else AWS
  std::string region;    // else $AWS_REGION, else us-east-1
  std::string addressing = "path";  // or "virtual"
  bool migrate = true;              // apply pending PostgreSQL migrations
  int64_t refresh_after = 600;      // S3BlobStore: Keep copies only older blobs
};

// Adds --blobs, --meta, --endpoint, --region and --addressing to `cmd`.
void AddBackendOptions(CLI::App* cmd, BackendFlags* flags);

class Backends {
 public:
  // Opens what the flags name, with `embedded` for the halves they leave
  // local. Errors name the bucket or database, never a secret.
  static Result<std::unique_ptr<Backends>> Open(const BackendFlags& flags,
                                                EmbeddedStore& embedded);

  BlobStore& blobs() { return *blobs_; }
  MetaStore& meta() { return *meta_; }
  Registry& registry() { return registry_; }
  S3BlobStore* s3() { return s3_.get(); }  // null for local blobs
  // "blobs s3://b/p, metadata postgres://u@h/db", for logs.
  const std::string& description() const { return description_; }

 private:
  Backends(BlobStore* blobs, MetaStore* meta)
      : blobs_(blobs), meta_(meta), registry_(blobs, meta) {}
  std::unique_ptr<S3BlobStore> s3_;
  std::unique_ptr<MetaStore> pg_;
  BlobStore* blobs_;
  MetaStore* meta_;
  Registry registry_;
  std::string description_;
};

}  // namespace sealvol::cli

#endif  // SEALVOL_CLI_BACKENDS_H_
