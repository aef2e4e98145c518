// GcsSource: a prefix of a Google Cloud Storage bucket as a RemoteSource
// (gs://BUCKET/PREFIX), through the JSON API: objects.list (paged by
// nextPageToken) and objects.get with alt=media and a Range, conditional on
// the listed generation (ifGenerationMatch). An object's generation is its
// identity: it changes whenever the bytes do.
//
// Credentials, first found: GOOGLE_OAUTH_ACCESS_TOKEN (a bearer token, as
// `gcloud auth print-access-token` gives); a service-account key file
// (GOOGLE_APPLICATION_CREDENTIALS), exchanged at its token_uri for a
// read-only token with a JWT signed RS256; none with --no-sign (public
// buckets). The endpoint is --endpoint, STORAGE_EMULATOR_HOST, or
// https://storage.googleapis.com. (GCS's S3-compatible endpoint with HMAC
// keys is the s3:// source with --endpoint https://storage.googleapis.com.)
//
// Thread safety: ReadRange may be called from many threads.
#ifndef SEALVOL_SOURCES_GCS_SOURCE_H_
#define SEALVOL_SOURCES_GCS_SOURCE_H_

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "client/http_client.h"
#include "publish/remote_source.h"
#include "sources/source_uri.h"

namespace sealvol {

struct GcsOptions {
  std::string endpoint = "https://storage.googleapis.com";
  std::string bearer;  // empty: unsigned requests
  std::chrono::milliseconds retry_for{15000};
};

// Options for `spec`: endpoint and a bearer token (exchanging a service
// account key when that is what is configured).
Result<GcsOptions> GcsOptionsFor(const std::string& endpoint_flag, bool no_sign,
                                 std::chrono::milliseconds retry_for);

// The signed JWT a service account presents for a read-only storage token.
// `key_json` is the key file's content; `now` unix seconds.
Result<std::string> ServiceAccountAssertion(std::string_view key_json,
                                            int64_t now);

struct GcsObject {
  std::string name;
  uint64_t size = 0;
  std::string generation;
};
struct GcsListPage {
  std::vector<GcsObject> objects;
  std::string next_page_token;
};
// One objects.list answer. Corruption on anything that is not one.
Result<GcsListPage> ParseGcsList(std::string_view json);

class GcsSource : public RemoteSource {
 public:
  GcsSource(SourceSpec spec, GcsOptions options);
  std::string Uri() const override { return spec_.Uri(); }
  Result<std::vector<RemoteEntry>> List() override;
  Result<std::string> ReadRange(const RemoteEntry& e, uint64_t offset,
                                uint64_t length) override;

 private:
  Status ErrorFrom(const HttpResponse& r, const std::string& what) const;

  SourceSpec spec_;
  GcsOptions options_;
  std::string base_path_;
  std::unique_ptr<HttpClient> http_;
};

}  // namespace sealvol

#endif  // SEALVOL_SOURCES_GCS_SOURCE_H_
