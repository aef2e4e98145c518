// AWS Signature Version 4 for S3-compatible stores (AWS S3, R2, CoreWeave,
// GCS interoperability, Ceph RGW): signing a request in its Authorization
// header, or presigning a URL in its query string. Pure functions of their
// inputs (the time is passed in), checked against AWS's published examples.
//
// Thread safety: reentrant free functions over values.
#ifndef SEALVOL_SOURCES_SIGV4_H_
#define SEALVOL_SOURCES_SIGV4_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sealvol {

struct AwsCredentials {
  std::string access_key;
  std::string secret_key;
  std::string session_token;  // temporary credentials; empty otherwise
};

struct SigV4Scope {
  std::string region = "us-east-1";
  std::string service = "s3";
  std::string amz_date;  // "YYYYMMDDTHHMMSSZ", UTC
};

using HttpFields = std::vector<std::pair<std::string, std::string>>;

struct SigV4Request {
  std::string method = "GET";
  std::string host;    // as sent in Host (with ":port" when not default)
  std::string path;    // decoded object path, e.g. "/bucket/key name"
  HttpFields query;    // decoded names and values
  HttpFields headers;  // extra headers to sign (Range, ...); not Host
  // Hex SHA-256 of the body, or "UNSIGNED-PAYLOAD".
  std::string payload_sha256 =
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
};

// RFC 3986 percent-encoding as SigV4 wants it: unreserved characters kept,
// everything else %XX (upper case); '/' kept unless `encode_slash`.
std::string UriEncode(std::string_view s, bool encode_slash);

// `t` as SigV4 writes times: "YYYYMMDDTHHMMSSZ" (UTC).
std::string AmzDate(int64_t unix_seconds);

// The request target to send for `path` and `query` (decoded): encoded as
// the canonical request encodes them, so what is sent is what is signed.
std::string RequestTarget(const std::string& path, const HttpFields& query);

// The canonical request (exposed for tests and for debugging a 403).
std::string CanonicalRequest(const SigV4Request& r, const HttpFields& headers);

// The headers to send with `r`: x-amz-date, x-amz-content-sha256,
// x-amz-security-token (when set) and Authorization.
HttpFields SignV4(const SigV4Request& r, const AwsCredentials& creds,
                  const SigV4Scope& scope);

// The query string (without '?') that presigns `r` for `expires_seconds`
// (at most 604800); only Host is signed and the payload is unsigned.
std::string PresignV4(const SigV4Request& r, const AwsCredentials& creds,
                      const SigV4Scope& scope, int64_t expires_seconds);

}  // namespace sealvol

#endif  // SEALVOL_SOURCES_SIGV4_H_
