#include "sources/s3_client.h"

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <thread>

#include "hash/sha256.h"
#include "sources/source_util.h"
#include "sources/xml.h"

namespace sealvol {

using sources_internal::Env;
using sources_internal::Unquote;

void CredentialsFromEnvironment(S3Options* o) {
  if (!Env("AWS_ACCESS_KEY_ID").empty()) {
    o->creds.access_key = Env("AWS_ACCESS_KEY_ID");
    o->creds.secret_key = Env("AWS_SECRET_ACCESS_KEY");
    o->creds.session_token = Env("AWS_SESSION_TOKEN");
  }
  if (!Env("AWS_REGION").empty()) {
    o->region = Env("AWS_REGION");
  } else if (!Env("AWS_DEFAULT_REGION").empty()) {
    o->region = Env("AWS_DEFAULT_REGION");
  }
}

Result<S3ListPage> ParseListObjectsV2(std::string_view xml) {
  if (xml.find("<ListBucketResult") == std::string_view::npos) {
    return Corruption("not a ListObjectsV2 answer");
  }
  S3ListPage page;
  auto bad = [] { return Corruption("malformed ListObjectsV2 answer"); };
  if (auto t = XmlElement(xml, "IsTruncated")) page.truncated = *t == "true";
  if (auto t = XmlElement(xml, "NextContinuationToken")) {
    auto text = XmlText(*t);
    if (!text) return bad();
    page.next_token = *text;
  }
  if (page.truncated && page.next_token.empty()) {
    return Corruption("a truncated listing without a continuation token");
  }
  auto items = XmlElements(xml, "Contents");
  if (!items) return bad();
  for (std::string_view c : *items) {
    S3Object o;
    auto key = XmlElement(c, "Key");
    auto size = XmlElement(c, "Size");
    if (!key || !size) return bad();
    auto k = XmlText(*key);
    if (!k || k->empty()) return bad();
    o.key = *k;
    auto n = sources_internal::ParseDecimal(*size);
    if (!n) return bad();
    o.size = *n;
    if (auto e = XmlElement(c, "ETag")) {
      auto t = XmlText(*e);
      if (!t) return bad();
      o.etag = Unquote(*t);
    }
    if (auto s = XmlElement(c, "ChecksumSHA256")) o.checksum_sha256 = *s;
    if (auto m = XmlElement(c, "LastModified")) o.last_modified = *m;
    page.objects.push_back(std::move(o));
  }
  return page;
}

S3Client::S3Client(S3Options options, std::string bucket)
    : options_(std::move(options)), bucket_(std::move(bucket)) {
  std::string ep = options_.endpoint;
  while (!ep.empty() && ep.back() == '/') ep.pop_back();
  size_t scheme = ep.find("://");
  std::string host = scheme == std::string::npos ? ep : ep.substr(scheme + 3);
  std::string prefix =
      scheme == std::string::npos ? "https://" : ep.substr(0, scheme + 3);
  HttpClientOptions ho;
  ho.retry_for = options_.retry_for;
  // Throttling (429, 503 SlowDown) and server errors pass; retry them.
  ho.retry_statuses = {429, 500, 502, 503, 504};
  ho.server_name = "object store";
  if (options_.path_style) {
    host_ = host;
    path_prefix_ = "/" + bucket_;
  } else {
    host_ = bucket_ + "." + host;
  }
  ho.base_url = prefix + host_;
  http_ = std::make_unique<HttpClient>(ho);
}

std::optional<int64_t> ParseS3Time(std::string_view text) {
  struct tm tm = {};
  std::string s(text);
  const char* end = strptime(s.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (end == nullptr) end = strptime(s.c_str(), "%a, %d %b %Y %H:%M:%S", &tm);
  if (end == nullptr) return std::nullopt;
  return static_cast<int64_t>(timegm(&tm));
}

Result<HttpResponse> S3Client::Send(const std::string& method,
                                    const std::string& key,
                                    const HttpFields& query, HttpFields headers,
                                    std::string_view body) {
  SigV4Request r;
  r.method = method;
  r.host = host_;
  r.path = path_prefix_ + "/" + key;
  r.query = query;
  r.headers = headers;
  if (!body.empty()) r.payload_sha256 = Sha256::Of(body).Hex();
  if (!options_.anonymous) {
    HttpFields sig = SignV4(r, options_.creds,
                            {options_.region, "s3", AmzDate(time(nullptr))});
    headers.insert(headers.end(), sig.begin(), sig.end());
  }
  return http_->Send(method, RequestTarget(r.path, query), body, headers);
}

Status S3Client::ErrorFrom(const HttpResponse& r,
                           const std::string& what) const {
  std::string code(XmlElement(r.body, "Code").value_or(""));
  std::string msg = what + ": HTTP " + std::to_string(r.status) +
                    (code.empty() ? "" : " " + code);
  switch (r.status) {
    case 401:
    case 403:
      return PermissionDenied(
          msg +
          (code == "SignatureDoesNotMatch"
               ? " (check the secret key and the region)"
           : code == "InvalidAccessKeyId"
               ? " (the access key is not known to " + options_.endpoint + ")"
               : " (check the credentials, or --no-sign for a public "
                 "bucket)"));
    case 404:
      return NotFound(msg);
    default:
      return IOError(msg);
  }
}

Result<std::vector<S3Object>> S3Client::List(const std::string& prefix,
                                             int page_size) {
  std::vector<S3Object> out;
  std::string token;
  for (int page = 0;; ++page) {
    HttpFields q = {{"list-type", "2"},
                    {"max-keys", std::to_string(page_size)},
                    {"prefix", prefix}};
    if (!token.empty()) q.emplace_back("continuation-token", token);
    SV_ASSIGN_OR_RETURN(HttpResponse r, Send("GET", "", q, {}));
    std::string what = "list s3://" + bucket_ + "/" + prefix;
    if (r.status != 200) return ErrorFrom(r, what);
    auto parsed = ParseListObjectsV2(r.body);
    if (!parsed) return Corruption(what + ": " + parsed.error().message());
    for (auto& o : parsed->objects) out.push_back(std::move(o));
    if (!parsed->truncated) break;
    if (parsed->next_token == token) {
      return Corruption(what + ": the store repeated a continuation token");
    }
    token = parsed->next_token;
  }
  return out;
}

Result<std::string> S3Client::GetRange(const std::string& key, uint64_t offset,
                                       uint64_t length,
                                       const std::string& if_match) {
  std::string what = "s3://" + bucket_ + "/" + key;
  if (length == 0) return std::string();
  HttpFields headers = {{"Range", "bytes=" + std::to_string(offset) + "-" +
                                      std::to_string(offset + length - 1)}};
  if (!if_match.empty())
    headers.emplace_back("If-Match", "\"" + if_match + "\"");
  SV_ASSIGN_OR_RETURN(HttpResponse r, Send("GET", key, {}, headers));
  if (r.status == 412) {
    return FailedPrecondition(what +
                              " changed while it was read (its ETag "
                              "is no longer " +
                              if_match + "); sync again");
  }
  if (auto body = sources_internal::RangeBody(r, offset, length, what)) {
    return std::move(*body);
  }
  return ErrorFrom(r, what);
}

Result<std::string> S3Client::Get(const std::string& key) {
  SV_ASSIGN_OR_RETURN(HttpResponse r, Send("GET", key, {}, {}));
  if (r.status == 200) return std::move(r.body);
  return ErrorFrom(r, "get s3://" + bucket_ + "/" + key);
}

Result<bool> S3Client::PutIfAbsent(const std::string& key,
                                   std::string_view body) {
  std::string what = "put s3://" + bucket_ + "/" + key;
  // 409 ConditionalRequestConflict: another conditional write of the same
  // key is in flight; its outcome decides, so ask again.
  for (int attempt = 0;; ++attempt) {
    SV_ASSIGN_OR_RETURN(HttpResponse r,
                        Send("PUT", key, {}, {{"If-None-Match", "*"}}, body));
    if (r.status == 200) return true;
    if (r.status == 412) return false;
    if (r.status == 409 && attempt < 20) {
      std::this_thread::sleep_for(
          std::chrono::milliseconds(50 << (attempt % 5)));
      continue;
    }
    return ErrorFrom(r, what);
  }
}

Result<std::optional<S3Object>> S3Client::Head(const std::string& key) {
  SV_ASSIGN_OR_RETURN(HttpResponse r, Send("HEAD", key, {}, {}));
  if (r.status == 404) return std::optional<S3Object>();
  if (r.status != 200) return ErrorFrom(r, "head s3://" + bucket_ + "/" + key);
  S3Object o;
  o.key = key;
  auto n = sources_internal::ParseDecimal(r.headers["content-length"]);
  if (!n)
    return Corruption("head s3://" + bucket_ + "/" + key +
                      ": no Content-Length");
  o.size = *n;
  o.etag = Unquote(r.headers["etag"]);
  o.last_modified = r.headers["last-modified"];
  return std::optional<S3Object>(std::move(o));
}

Status S3Client::Delete(const std::string& key) {
  SV_ASSIGN_OR_RETURN(HttpResponse r, Send("DELETE", key, {}, {}));
  if (r.status == 204 || r.status == 200 || r.status == 404) {
    return Status::Ok();
  }
  return ErrorFrom(r, "delete s3://" + bucket_ + "/" + key);
}

Status S3Client::Touch(const std::string& key) {
  std::string what = "refresh s3://" + bucket_ + "/" + key;
  // A copy onto itself must change something: REPLACE sets the (empty)
  // user metadata, and the store stamps a new Last-Modified.
  SV_ASSIGN_OR_RETURN(
      HttpResponse r,
      Send("PUT", key, {},
           {{"x-amz-copy-source", UriEncode(bucket_ + "/" + key, false)},
            {"x-amz-metadata-directive", "REPLACE"}}));
  // A copy can fail after its 200 status line: the error is in the body.
  if (r.status == 200 && r.body.find("<Error>") == std::string::npos) {
    return Status::Ok();
  }
  if (r.status == 200) r.status = 500;
  return ErrorFrom(r, what);
}

std::string S3Client::PresignGet(const std::string& key,
                                 int64_t expires_seconds, int64_t now) const {
  if (options_.anonymous) return "";
  SigV4Request r;
  r.method = "GET";
  r.host = host_;
  r.path = path_prefix_ + "/" + key;
  std::string q =
      PresignV4(r, options_.creds, {options_.region, "s3", AmzDate(now)},
                expires_seconds);
  return http_->base_url() + RequestTarget(r.path, {}) + "?" + q;
}

}  // namespace sealvol
