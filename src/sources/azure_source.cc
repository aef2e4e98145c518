#include "sources/azure_source.h"

#include <algorithm>
#include <cstdlib>
#include <ctime>

#include "base/base64.h"
#include "hash/hmac.h"
#include "sources/sigv4.h"
#include "sources/source_util.h"
#include "sources/xml.h"

namespace sealvol {
namespace {

using sources_internal::Env;
using sources_internal::Unquote;

constexpr char kApiVersion[] = "2021-08-06";

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string HttpDate() {
  time_t t = ::time(nullptr);
  struct tm tm;
  ::gmtime_r(&t, &tm);
  char buf[64];
  ::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return buf;
}

}  // namespace

Result<std::map<std::string, std::string>> ParseConnectionString(
    std::string_view s) {
  std::map<std::string, std::string> out;
  while (!s.empty()) {
    size_t semi = s.find(';');
    std::string_view part = s.substr(0, semi);
    s = semi == std::string_view::npos ? std::string_view()
                                       : s.substr(semi + 1);
    if (part.empty()) continue;
    size_t eq = part.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      return InvalidArgument(
          "AZURE_STORAGE_CONNECTION_STRING: expected Name=value pairs "
          "separated by ';'");
    }
    out[std::string(part.substr(0, eq))] = std::string(part.substr(eq + 1));
  }
  return out;
}

Result<AzureOptions> AzureOptionsFor(const SourceSpec& spec,
                                     const std::string& endpoint_flag) {
  AzureOptions o;
  o.account = spec.account;
  std::string cs = Env("AZURE_STORAGE_CONNECTION_STRING");
  if (!cs.empty()) {
    SV_ASSIGN_OR_RETURN(auto kv, ParseConnectionString(cs));
    if (kv.count("AccountName") && kv["AccountName"] != spec.account) {
      return InvalidArgument(
          "AZURE_STORAGE_CONNECTION_STRING is for account '" +
          kv["AccountName"] + "', not '" + spec.account + "'");
    }
    o.key = kv["AccountKey"];
    o.sas = kv["SharedAccessSignature"];
    o.endpoint = kv["BlobEndpoint"];
    if (o.endpoint.empty() && kv.count("EndpointSuffix")) {
      std::string proto = kv.count("DefaultEndpointsProtocol")
                              ? kv["DefaultEndpointsProtocol"]
                              : "https";
      o.endpoint =
          proto + "://" + spec.account + ".blob." + kv["EndpointSuffix"];
    }
  }
  if (o.key.empty()) o.key = Env("AZURE_STORAGE_KEY");
  if (o.sas.empty()) o.sas = Env("AZURE_STORAGE_SAS_TOKEN");
  o.bearer = Env("AZURE_STORAGE_BEARER_TOKEN");
  if (!o.sas.empty() && o.sas[0] == '?') o.sas.erase(0, 1);
  if (!endpoint_flag.empty()) o.endpoint = endpoint_flag;
  if (o.endpoint.empty()) {
    o.endpoint = "https://" + spec.account + ".blob.core.windows.net";
  }
  while (!o.endpoint.empty() && o.endpoint.back() == '/') o.endpoint.pop_back();
  if (o.endpoint.rfind("http://", 0) != 0 &&
      o.endpoint.rfind("https://", 0) != 0) {
    return InvalidArgument("the endpoint '" + o.endpoint +
                           "' must start with http:// or https://");
  }
  if (!o.key.empty() && !Base64Decode(o.key)) {
    return InvalidArgument("the Azure account key is not base64");
  }
  if (o.key.empty() && o.sas.empty() && o.bearer.empty()) {
    return PermissionDenied(
        "no credentials for " + spec.Uri() +
        ": set AZURE_STORAGE_CONNECTION_STRING, AZURE_STORAGE_KEY, "
        "AZURE_STORAGE_SAS_TOKEN or AZURE_STORAGE_BEARER_TOKEN");
  }
  return o;
}

std::string SharedKeyStringToSign(
    const std::string& method,
    const std::map<std::string, std::string>& headers,
    const std::string& account, const std::string& encoded_path,
    const std::map<std::string, std::string>& query) {
  std::map<std::string, std::string> h;
  for (const auto& [k, v] : headers) h[Lower(k)] = v;
  auto get = [&](const char* name) {
    auto it = h.find(name);
    return it == h.end() ? std::string() : it->second;
  };
  std::string length = get("content-length");
  if (length == "0") length.clear();
  std::string s = method + "\n" + get("content-encoding") + "\n" +
                  get("content-language") + "\n" + length + "\n" +
                  get("content-md5") + "\n" + get("content-type") + "\n" +
                  get("date") + "\n" + get("if-modified-since") + "\n" +
                  get("if-match") + "\n" + get("if-none-match") + "\n" +
                  get("if-unmodified-since") + "\n" + get("range") + "\n";
  for (const auto& [k, v] : h) {  // sorted by lowercase name
    if (k.rfind("x-ms-", 0) == 0) s += k + ":" + v + "\n";
  }
  s += "/" + account + encoded_path;
  std::map<std::string, std::string> q;
  for (const auto& [k, v] : query) q[Lower(k)] = v;
  for (const auto& [k, v] : q) s += "\n" + k + ":" + v;
  return s;
}

Result<AzureListPage> ParseListBlobs(std::string_view xml) {
  if (xml.find("<EnumerationResults") == std::string_view::npos) {
    return Corruption("not a List Blobs answer");
  }
  auto bad = [] { return Corruption("malformed List Blobs answer"); };
  AzureListPage page;
  size_t blobs_end = xml.rfind("</Blobs>");
  std::string_view tail =
      blobs_end == std::string_view::npos ? xml : xml.substr(blobs_end);
  if (auto m = XmlElement(tail, "NextMarker")) {
    auto t = XmlText(*m);
    if (!t) return bad();
    page.next_marker = *t;
  }
  auto items = XmlElements(xml, "Blob");
  if (!items) return bad();
  for (std::string_view c : *items) {
    auto name = XmlElement(c, "Name");
    auto len = XmlElement(c, "Content-Length");
    if (!name || !len) return bad();
    auto n = XmlText(*name);
    if (!n || n->empty()) return bad();
    auto size = sources_internal::ParseDecimal(*len);
    if (!size) return bad();
    AzureBlob blob;
    blob.name = *n;
    blob.size = *size;
    if (auto e = XmlElement(c, "Etag")) {
      auto t = XmlText(*e);
      if (!t) return bad();
      blob.etag = Unquote(*t);
    }
    page.blobs.push_back(std::move(blob));
  }
  return page;
}

AzureSource::AzureSource(SourceSpec spec, AzureOptions options)
    : spec_(std::move(spec)), options_(std::move(options)) {
  size_t scheme = options_.endpoint.find("://");
  size_t slash = options_.endpoint.find('/', scheme + 3);
  std::string origin = options_.endpoint.substr(0, slash);
  if (slash != std::string::npos) base_path_ = options_.endpoint.substr(slash);
  HttpClientOptions ho;
  ho.base_url = origin;
  ho.retry_for = options_.retry_for;
  http_ = std::make_unique<HttpClient>(ho);
}

Result<HttpResponse> AzureSource::Send(
    const std::string& path, const std::map<std::string, std::string>& query,
    std::map<std::string, std::string> headers) {
  std::string full_path = base_path_ + path;
  headers["x-ms-date"] = HttpDate();
  headers["x-ms-version"] = kApiVersion;
  std::string target = full_path;
  char sep = '?';
  for (const auto& [k, v] : query) {
    target += sep + UriEncode(k, true) + "=" + UriEncode(v, true);
    sep = '&';
  }
  if (!options_.sas.empty()) {
    target += sep + options_.sas;
  } else if (!options_.bearer.empty()) {
    headers["Authorization"] = "Bearer " + options_.bearer;
  } else {
    std::string to_sign = SharedKeyStringToSign(
        "GET", headers, options_.account, full_path, query);
    std::string sig =
        Base64Encode(HmacSha256(*Base64Decode(options_.key), to_sign));
    headers["Authorization"] = "SharedKey " + options_.account + ":" + sig;
  }
  std::vector<std::pair<std::string, std::string>> h(headers.begin(),
                                                     headers.end());
  return http_->Send("GET", target, {}, h);
}

Status AzureSource::ErrorFrom(const HttpResponse& r,
                              const std::string& what) const {
  std::string code(XmlElement(r.body, "Code").value_or(""));
  auto header = r.headers.find("x-ms-error-code");
  if (code.empty() && header != r.headers.end()) code = header->second;
  std::string msg = what + ": HTTP " + std::to_string(r.status) +
                    (code.empty() ? "" : " " + code);
  switch (r.status) {
    case 401:
    case 403:
      return PermissionDenied(
          msg + (code == "AuthenticationFailed"
                     ? " (check the account key, or the SAS token's "
                       "permissions and expiry)"
                     : " (check the credentials' access to the container)"));
    case 404:
      return NotFound(msg);
    case 412:
      return FailedPrecondition(what +
                                " changed while it was read; sync again");
    default:
      return IOError(msg);
  }
}

Result<std::vector<RemoteEntry>> AzureSource::List() {
  std::vector<RemoteEntry> out;
  std::string marker;
  std::string what = "list " + Uri();
  for (int page = 0;; ++page) {
    std::map<std::string, std::string> q = {
        {"restype", "container"}, {"comp", "list"}, {"maxresults", "1000"}};
    if (!spec_.prefix.empty()) q["prefix"] = spec_.prefix;
    if (!marker.empty()) q["marker"] = marker;
    SV_ASSIGN_OR_RETURN(HttpResponse r,
                        Send("/" + UriEncode(spec_.bucket, true), q, {}));
    if (r.status != 200) return ErrorFrom(r, what);
    auto parsed = ParseListBlobs(r.body);
    if (!parsed) return Corruption(what + ": " + parsed.error().message());
    for (auto& b : parsed->blobs) {
      SV_RETURN_IF_ERROR(sources_internal::AddListed(what, spec_.prefix, b.name,
                                                     b.size, b.etag, &out)
                             .status());
    }
    if (parsed->next_marker.empty()) break;
    if (parsed->next_marker == marker) {
      return Corruption(what + ": the service repeated a marker");
    }
    marker = parsed->next_marker;
  }
  return out;
}

Result<std::string> AzureSource::ReadRange(const RemoteEntry& e,
                                           uint64_t offset, uint64_t length) {
  if (length == 0) return std::string();
  std::map<std::string, std::string> h = {
      {"x-ms-range", "bytes=" + std::to_string(offset) + "-" +
                         std::to_string(offset + length - 1)}};
  if (!e.identity.empty()) h["If-Match"] = "\"" + e.identity + "\"";
  std::string what = Uri() + e.path;
  SV_ASSIGN_OR_RETURN(HttpResponse r,
                      Send("/" + UriEncode(spec_.bucket, true) + "/" +
                               UriEncode(e.locator, false),
                           {}, h));
  if (auto body = sources_internal::RangeBody(r, offset, length, what)) {
    return std::move(*body);
  }
  return ErrorFrom(r, what);
}

}  // namespace sealvol
