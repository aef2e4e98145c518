// S3Source: a prefix of an S3-compatible bucket as a RemoteSource, for
// s3://, r2:// and cw:// URIs. Each key under the prefix is a file; its
// ETag is its identity (reads are conditional on it, so an object replaced
// mid-sync fails the sync instead of mixing versions), and a full-object
// ChecksumSHA256, when the store lists one, is the SHA-256 it must hash to.
// Zero-byte keys ending in '/' (folder markers) are skipped.
//
// Endpoints (docs/sync.md): s3:// uses AWS (virtual-hosted, the region's
// endpoint) unless --endpoint or AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL
// name another (path-style); r2:// uses
// https://ACCOUNT.r2.cloudflarestorage.com (region "auto", path-style); cw://
// uses https://cwobject.com (virtual-hosted, as CoreWeave requires). --endpoint
// and --addressing override any of them.
//
// Thread safety: ReadRange may be called from many threads (S3Client is
// thread safe).
#ifndef SEALVOL_SOURCES_S3_SOURCE_H_
#define SEALVOL_SOURCES_S3_SOURCE_H_

#include <chrono>
#include <memory>
#include <string>

#include "publish/remote_source.h"
#include "sources/s3_client.h"
#include "sources/source_uri.h"

namespace sealvol {

struct S3Flags {
  std::string endpoint;    // --endpoint
  std::string region;      // --region
  std::string addressing;  // --addressing: "", "path" or "virtual"
  bool no_sign = false;    // --no-sign
  std::chrono::milliseconds retry_for{15000};  // transient failures
};

// The endpoint, region, addressing and credentials for `spec` (s3, r2 or
// cw): flags, then the environment, then the AWS files under `home`.
Result<S3Options> S3OptionsFor(const SourceSpec& spec, const S3Flags& flags,
                               const std::string& home);

class S3Source : public RemoteSource {
 public:
  S3Source(SourceSpec spec, S3Options options);
  std::string Uri() const override { return spec_.Uri(); }
  Result<std::vector<RemoteEntry>> List() override;
  Result<std::string> ReadRange(const RemoteEntry& e, uint64_t offset,
                                uint64_t length) override;

 private:
  SourceSpec spec_;
  S3Client client_;
};

}  // namespace sealvol

#endif  // SEALVOL_SOURCES_S3_SOURCE_H_
