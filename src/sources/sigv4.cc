#include "sources/sigv4.h"

#include <algorithm>
#include <cctype>
#include <ctime>

#include "hash/hmac.h"
#include "hash/sha256.h"

namespace sealvol {
namespace {

std::string Lower(std::string s) {
  for (char& c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Leading and trailing spaces dropped, inner runs of spaces made one.
std::string TrimValue(std::string_view v) {
  std::string out;
  bool space = false;
  for (char c : v) {
    if (c == ' ' || c == '\t') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

std::string CanonicalQuery(const HttpFields& query) {
  std::vector<std::pair<std::string, std::string>> enc;
  for (const auto& [k, v] : query) {
    enc.emplace_back(UriEncode(k, true), UriEncode(v, true));
  }
  std::sort(enc.begin(), enc.end());
  std::string out;
  for (const auto& [k, v] : enc) {
    out += (out.empty() ? "" : "&") + k + "=" + v;
  }
  return out;
}

// Lower-cased names, trimmed values, sorted by name.
HttpFields Canonical(const HttpFields& headers) {
  HttpFields out;
  for (const auto& [k, v] : headers) out.emplace_back(Lower(k), TrimValue(v));
  std::sort(out.begin(), out.end());
  return out;
}

std::string SignedHeaders(const HttpFields& canonical) {
  std::string out;
  for (const auto& h : canonical) out += (out.empty() ? "" : ";") + h.first;
  return out;
}

std::string CredentialScope(const SigV4Scope& s) {
  return s.amz_date.substr(0, 8) + "/" + s.region + "/" + s.service +
         "/aws4_request";
}

std::string Signature(const std::string& canonical_request,
                      const AwsCredentials& creds, const SigV4Scope& scope) {
  std::string to_sign = "AWS4-HMAC-SHA256\n" + scope.amz_date + "\n" +
                        CredentialScope(scope) + "\n" +
                        Sha256::Of(canonical_request).Hex();
  std::string key =
      HmacSha256("AWS4" + creds.secret_key, scope.amz_date.substr(0, 8));
  key = HmacSha256(key, scope.region);
  key = HmacSha256(key, scope.service);
  key = HmacSha256(key, "aws4_request");
  return HexEncode(HmacSha256(key, to_sign));
}

}  // namespace

std::string UriEncode(std::string_view s, bool encode_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' ||
        (c == '/' && !encode_slash)) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string AmzDate(int64_t unix_seconds) {
  char buf[32];
  time_t t = static_cast<time_t>(unix_seconds);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

std::string RequestTarget(const std::string& path, const HttpFields& query) {
  std::string q;
  for (const auto& [k, v] : query) {
    q +=
        (q.empty() ? "?" : "&") + UriEncode(k, true) + "=" + UriEncode(v, true);
  }
  return UriEncode(path.empty() ? "/" : path, false) + q;
}

std::string CanonicalRequest(const SigV4Request& r, const HttpFields& headers) {
  HttpFields canon = Canonical(headers);
  std::string out = r.method + "\n" +
                    UriEncode(r.path.empty() ? "/" : r.path, false) + "\n" +
                    CanonicalQuery(r.query) + "\n";
  for (const auto& [k, v] : canon) out += k + ":" + v + "\n";
  return out + "\n" + SignedHeaders(canon) + "\n" + r.payload_sha256;
}

HttpFields SignV4(const SigV4Request& r, const AwsCredentials& creds,
                  const SigV4Scope& scope) {
  HttpFields add = {{"x-amz-content-sha256", r.payload_sha256},
                    {"x-amz-date", scope.amz_date}};
  if (!creds.session_token.empty()) {
    add.emplace_back("x-amz-security-token", creds.session_token);
  }
  HttpFields all = {{"host", r.host}};
  all.insert(all.end(), r.headers.begin(), r.headers.end());
  all.insert(all.end(), add.begin(), add.end());
  std::string sig = Signature(CanonicalRequest(r, all), creds, scope);
  add.emplace_back("Authorization",
                   "AWS4-HMAC-SHA256 Credential=" + creds.access_key + "/" +
                       CredentialScope(scope) + ",SignedHeaders=" +
                       SignedHeaders(Canonical(all)) + ",Signature=" + sig);
  return add;
}

std::string PresignV4(const SigV4Request& r, const AwsCredentials& creds,
                      const SigV4Scope& scope, int64_t expires_seconds) {
  SigV4Request q = r;
  q.payload_sha256 = "UNSIGNED-PAYLOAD";
  q.query.emplace_back("X-Amz-Algorithm", "AWS4-HMAC-SHA256");
  q.query.emplace_back("X-Amz-Credential",
                       creds.access_key + "/" + CredentialScope(scope));
  q.query.emplace_back("X-Amz-Date", scope.amz_date);
  q.query.emplace_back("X-Amz-Expires", std::to_string(std::clamp<int64_t>(
                                            expires_seconds, 1, 604800)));
  q.query.emplace_back("X-Amz-SignedHeaders", "host");
  if (!creds.session_token.empty()) {
    q.query.emplace_back("X-Amz-Security-Token", creds.session_token);
  }
  std::string sig =
      Signature(CanonicalRequest(q, {{"host", r.host}}), creds, scope);
  return CanonicalQuery(q.query) + "&X-Amz-Signature=" + sig;
}

}  // namespace sealvol
