// S3BlobStore: blobs as objects in an S3-compatible bucket (AWS S3, R2,
// CoreWeave, GCS interoperability, MinIO, Ceph RGW), at
// `PREFIX/blobs/sha256/<2 hex>/<64 hex>` (docs/format.md, "Store layout").
//
// A Put is one conditional PUT (`If-None-Match: *`): the store makes the
// object visible whole or not at all, and of two writers of one blob exactly
// one creates it, so a blob is never rewritten. A PUT that returned 200 is
// durable, so Sync has nothing to do. Keep refreshes Last-Modified with a
// server-side self-copy, but only for a blob older than `refresh_after`
// seconds (a copy moves the bytes inside the store; re-publishing a large
// model would copy all of it): a reused blob is then at most
// `refresh_after` plus the publish's duration old when its version
// commits, which GC's grace period must exceed. GC reads ages from the
// listing's LastModified (the store's clock, so replicas' clocks do not
// matter; the collector's must be within minutes of the store's).
//
// Thread safety: safe for concurrent use from many threads and processes
// (every operation is one request; the store serializes them).
#ifndef SEALVOL_STORE_S3_BLOB_STORE_H_
#define SEALVOL_STORE_S3_BLOB_STORE_H_

#include <memory>
#include <string>

#include "sources/s3_client.h"
#include "store/blob_store.h"

namespace sealvol {

class S3BlobStore : public BlobStore {
 public:
  // `uri` is s3://BUCKET[/PREFIX]. Checks the bucket can be listed with
  // these credentials, so a wrong key or bucket fails at start, clearly.
  static Result<std::unique_ptr<S3BlobStore>> Open(const std::string& uri,
                                                   S3Options options,
                                                   int64_t refresh_after = 600);

  Result<bool> Put(const Digest& digest, std::string_view envelope) override;
  Status Sync() override { return Status::Ok(); }
  Result<std::string> Get(const Digest& digest) override;
  Result<bool> Has(const Digest& digest) override;
  Status Keep(const Digest& digest) override;
  Status Delete(const Digest& digest) override;
  Status List(const std::function<void(const BlobInfo&)>& fn) override;
  // Both HEAD (and KeepAll copy) up to 16 blobs at once.
  Result<std::vector<Digest>> Missing(
      const std::vector<Digest>& digests) override;
  Result<std::vector<Digest>> KeepAll(
      const std::vector<Digest>& digests) override;

  // A URL that GETs the blob's envelope directly from the bucket for
  // `expires_seconds`; empty when the client is anonymous.
  std::string PresignGet(const Digest& digest, int64_t expires_seconds) const;

  // "s3://BUCKET/PREFIX", for messages.
  const std::string& uri() const { return uri_; }

 private:
  S3BlobStore(S3Options options, std::string bucket, std::string prefix,
              int64_t refresh_after);
  std::string Key(const Digest& d) const;
  // Those of `digests` for which `absent` says true, asking 16 at a time.
  Result<std::vector<Digest>> Select(
      const std::vector<Digest>& digests,
      const std::function<Result<bool>(const Digest&)>& absent);

  S3Client client_;
  std::string prefix_;  // "" or "PREFIX/"
  std::string uri_;
  int64_t refresh_after_;
};

}  // namespace sealvol

#endif  // SEALVOL_STORE_S3_BLOB_STORE_H_
