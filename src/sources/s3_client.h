// S3Client: what sealvol needs from an S3-compatible store (AWS S3, R2,
// CoreWeave, GCS interoperability, Ceph RGW): paginated ListObjectsV2 under
// a prefix and ranged GETs (sync reads sources with these), and
// create-once PUTs, HEAD, DELETE, self-copies and presigned GETs (the
// S3BlobStore writes with these). Requests are signed with SigV4 (or sent
// anonymously). Throttling (429, 503 SlowDown) and server errors (500, 502,
// 504) are retried with backoff for `retry_for`. Errors name the bucket and
// key and the store's own error code, never the credentials.
//
// Thread safety: safe for concurrent use (HttpClient is).
#ifndef SEALVOL_SOURCES_S3_CLIENT_H_
#define SEALVOL_SOURCES_S3_CLIENT_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "client/http_client.h"
#include "sources/sigv4.h"

namespace sealvol {

struct S3Options {
  std::string endpoint = "https://s3.amazonaws.com";  // scheme://host[:port]
  std::string region = "us-east-1";
  bool path_style = true;  // endpoint/bucket/key; else bucket.host/key
  bool anonymous = false;  // --no-sign
  AwsCredentials creds;
  std::chrono::milliseconds retry_for{15000};
};

// Credentials and region from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
// AWS_SESSION_TOKEN, AWS_REGION / AWS_DEFAULT_REGION (when set).
void CredentialsFromEnvironment(S3Options* options);

struct S3Object {
  std::string key;
  uint64_t size = 0;
  std::string etag;             // without quotes
  std::string checksum_sha256;  // base64, when the store reports one
  std::string last_modified;    // ISO 8601, as listed
};

// Unix seconds of an S3 timestamp: ISO 8601 ("2026-12-03T02:41:04.000Z")
// or an HTTP date ("Thu, 03 Dec 2026 02:41:04 GMT"); nullopt otherwise.
std::optional<int64_t> ParseS3Time(std::string_view text);

struct S3ListPage {
  std::vector<S3Object> objects;
  bool truncated = false;
  std::string next_token;
};

// One ListObjectsV2 answer. Corruption on anything that is not one.
Result<S3ListPage> ParseListObjectsV2(std::string_view xml);

class S3Client {
 public:
  S3Client(S3Options options, std::string bucket);

  // Every object under `prefix`, in key order, `page_size` per request.
  Result<std::vector<S3Object>> List(const std::string& prefix,
                                     int page_size = 1000);
  // `length` bytes of `key` from `offset` (fewer at the end of the object).
  // With `if_match` (an ETag), FailedPrecondition when the object has
  // changed since it was listed.
  Result<std::string> GetRange(const std::string& key, uint64_t offset,
                               uint64_t length,
                               const std::string& if_match = "");
  // The whole object; NotFound when absent.
  Result<std::string> Get(const std::string& key);
  // Stores `body` at `key` unless an object is there already (a conditional
  // `If-None-Match: *` PUT, so two writers never both succeed and a reader
  // sees nothing or the whole object): true when written, false when the
  // key existed.
  Result<bool> PutIfAbsent(const std::string& key, std::string_view body);
  // Size, ETag and Last-Modified, or nullopt when absent.
  Result<std::optional<S3Object>> Head(const std::string& key);
  // OK when removed or already absent.
  Status Delete(const std::string& key);
  // Sets the object's Last-Modified to now, by copying it onto itself
  // (server-side, no bytes through this process). NotFound when absent.
  Status Touch(const std::string& key);
  // A URL anyone holding it may GET `key` with until `expires_seconds`
  // after `now` (SigV4 query signing). Empty for an anonymous client.
  std::string PresignGet(const std::string& key, int64_t expires_seconds,
                         int64_t now) const;

 private:
  Result<HttpResponse> Send(const std::string& method, const std::string& key,
                            const HttpFields& query, HttpFields headers,
                            std::string_view body = {});
  Status ErrorFrom(const HttpResponse& r, const std::string& what) const;

  S3Options options_;
  std::string bucket_;
  std::string host_;         // as signed
  std::string path_prefix_;  // "/bucket" for path style, else ""
  std::unique_ptr<HttpClient> http_;
};

}  // namespace sealvol

#endif  // SEALVOL_SOURCES_S3_CLIENT_H_
