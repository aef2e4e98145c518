#include "sources/gcs_source.h"

#include <ctime>
#include <nlohmann/json.hpp>

#include "base/base64.h"
#include "base/file.h"
#include "hash/rsa_sign.h"
#include "sources/sigv4.h"
#include "sources/source_util.h"

namespace sealvol {
namespace {

using json = nlohmann::json;
using sources_internal::Env;

constexpr char kReadOnlyScope[] =
    "https://www.googleapis.com/auth/devstorage.read_only";

std::string Base64Url(std::string_view bytes) {
  std::string s = Base64Encode(bytes);
  while (!s.empty() && s.back() == '=') s.pop_back();
  for (char& c : s) {
    if (c == '+') c = '-';
    if (c == '/') c = '_';
  }
  return s;
}

// A JSON string or non-negative integer as text; nullopt otherwise.
std::optional<std::string> NumberText(const json& j) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_number_unsigned()) return std::to_string(j.get<uint64_t>());
  return std::nullopt;
}

// Exchanges a service-account key for a read-only access token.
Result<std::string> ExchangeKey(const std::string& path,
                                std::chrono::milliseconds retry_for) {
  SV_ASSIGN_OR_RETURN(std::string key_json, ReadFile(path, 64 << 10));
  SV_ASSIGN_OR_RETURN(std::string assertion,
                      ServiceAccountAssertion(key_json, ::time(nullptr)));
  std::string token_uri = json::parse(key_json)["token_uri"];
  size_t scheme = token_uri.find("://");
  size_t slash = token_uri.find('/', scheme + 3);
  HttpClientOptions ho;
  ho.base_url = token_uri.substr(0, slash);
  ho.retry_for = retry_for;
  HttpClient http(ho);
  std::string body =
      "grant_type=" +
      UriEncode("urn:ietf:params:oauth:grant-type:jwt-bearer", true) +
      "&assertion=" + assertion;
  SV_ASSIGN_OR_RETURN(
      HttpResponse r,
      http.Send("POST",
                slash == std::string::npos ? "/" : token_uri.substr(slash),
                body, {{"Content-Type", "application/x-www-form-urlencoded"}}));
  json j = json::parse(r.body, nullptr, false);
  if (r.status != 200 || !j.is_object() || !j.contains("access_token") ||
      !j["access_token"].is_string()) {
    std::string why = j.is_object() && j.contains("error_description") &&
                              j["error_description"].is_string()
                          ? j["error_description"].get<std::string>()
                          : "HTTP " + std::to_string(r.status);
    return PermissionDenied("exchanging the service-account key " + path +
                            " for a token at " + token_uri + ": " + why);
  }
  return j["access_token"].get<std::string>();
}

}  // namespace

Result<std::string> ServiceAccountAssertion(std::string_view key_json,
                                            int64_t now) {
  json k = json::parse(key_json, nullptr, false);
  auto field = [&](const char* name) -> std::string {
    if (!k.is_object() || !k.contains(name) || !k[name].is_string()) return "";
    return k[name].get<std::string>();
  };
  std::string email = field("client_email");
  std::string key = field("private_key");
  std::string token_uri = field("token_uri");
  if (email.empty() || key.empty() ||
      (token_uri.rfind("https://", 0) != 0 &&
       token_uri.rfind("http://", 0) != 0)) {
    return InvalidArgument(
        "not a service-account key file (want client_email, private_key and "
        "an http(s) token_uri)");
  }
  std::string header = Base64Url(R"({"alg":"RS256","typ":"JWT"})");
  std::string claims = Base64Url(json{
      {"iss", email},
      {"scope", kReadOnlyScope},
      {"aud", token_uri},
      {"iat", now},
      {"exp", now + 3600}}.dump());
  SV_ASSIGN_OR_RETURN(std::string sig,
                      RsaSha256Sign(key, header + "." + claims));
  return header + "." + claims + "." + Base64Url(sig);
}

Result<GcsOptions> GcsOptionsFor(const std::string& endpoint_flag, bool no_sign,
                                 std::chrono::milliseconds retry_for) {
  GcsOptions o;
  o.retry_for = retry_for;
  std::string emulator = Env("STORAGE_EMULATOR_HOST");
  if (!emulator.empty()) {
    o.endpoint = emulator.find("://") == std::string::npos
                     ? "http://" + emulator
                     : emulator;
  }
  if (!endpoint_flag.empty()) o.endpoint = endpoint_flag;
  while (!o.endpoint.empty() && o.endpoint.back() == '/') o.endpoint.pop_back();
  if (o.endpoint.rfind("http://", 0) != 0 &&
      o.endpoint.rfind("https://", 0) != 0) {
    return InvalidArgument("the endpoint '" + o.endpoint +
                           "' must start with http:// or https://");
  }
  if (no_sign) return o;
  o.bearer = Env("GOOGLE_OAUTH_ACCESS_TOKEN");
  if (!o.bearer.empty()) return o;
  std::string key_file = Env("GOOGLE_APPLICATION_CREDENTIALS");
  if (key_file.empty()) {
    return PermissionDenied(
        "no credentials for gs://: set GOOGLE_OAUTH_ACCESS_TOKEN, or "
        "GOOGLE_APPLICATION_CREDENTIALS to a service-account key file, or use "
        "--no-sign for a public bucket");
  }
  SV_ASSIGN_OR_RETURN(o.bearer, ExchangeKey(key_file, retry_for));
  return o;
}

Result<GcsListPage> ParseGcsList(std::string_view text) {
  json j = json::parse(text, nullptr, false);
  if (!j.is_object()) return Corruption("an objects.list answer must be JSON");
  GcsListPage page;
  if (j.contains("nextPageToken")) {
    if (!j["nextPageToken"].is_string()) {
      return Corruption("objects.list: nextPageToken is not a string");
    }
    page.next_page_token = j["nextPageToken"].get<std::string>();
  }
  if (!j.contains("items")) return page;
  if (!j["items"].is_array()) return Corruption("objects.list: items");
  for (const auto& x : j["items"]) {
    if (!x.is_object() || !x.contains("name") || !x["name"].is_string() ||
        x["name"].get<std::string>().empty() || !x.contains("size")) {
      return Corruption("objects.list: an item without a name or size");
    }
    auto size = NumberText(x["size"]);
    auto n = size ? sources_internal::ParseDecimal(*size) : std::nullopt;
    if (!n) return Corruption("objects.list: a bad size");
    GcsObject o;
    o.name = x["name"].get<std::string>();
    o.size = *n;
    if (x.contains("generation")) {
      auto g = NumberText(x["generation"]);
      if (!g || !sources_internal::ParseDecimal(*g)) {
        return Corruption("objects.list: a bad generation");
      }
      o.generation = *g;
    }
    page.objects.push_back(std::move(o));
  }
  return page;
}

GcsSource::GcsSource(SourceSpec spec, GcsOptions options)
    : spec_(std::move(spec)), options_(std::move(options)) {
  size_t scheme = options_.endpoint.find("://");
  size_t slash = options_.endpoint.find('/', scheme + 3);
  if (slash != std::string::npos) base_path_ = options_.endpoint.substr(slash);
  HttpClientOptions ho;
  ho.base_url = options_.endpoint.substr(0, slash);
  ho.token = options_.bearer;
  ho.retry_for = options_.retry_for;
  http_ = std::make_unique<HttpClient>(ho);
}

Status GcsSource::ErrorFrom(const HttpResponse& r,
                            const std::string& what) const {
  std::string msg = what + ": HTTP " + std::to_string(r.status);
  json j = json::parse(r.body, nullptr, false);
  if (j.is_object() && j.contains("error") && j["error"].is_object() &&
      j["error"].contains("message") && j["error"]["message"].is_string()) {
    msg += " (" + j["error"]["message"].get<std::string>() + ")";
  }
  switch (r.status) {
    case 401:
      return PermissionDenied(msg +
                              "; set GOOGLE_OAUTH_ACCESS_TOKEN or "
                              "GOOGLE_APPLICATION_CREDENTIALS");
    case 403:
      return PermissionDenied(msg +
                              "; the credentials cannot read this bucket");
    case 404:
      return NotFound(msg);
    case 412:
      return FailedPrecondition(what +
                                " changed while it was read; sync again");
    default:
      return IOError(msg);
  }
}

Result<std::vector<RemoteEntry>> GcsSource::List() {
  std::vector<RemoteEntry> out;
  std::string token;
  std::string what = "list " + Uri();
  for (;;) {
    std::string target =
        base_path_ + "/storage/v1/b/" + UriEncode(spec_.bucket, true) +
        "/o?maxResults=1000&prefix=" + UriEncode(spec_.prefix, true);
    if (!token.empty()) target += "&pageToken=" + UriEncode(token, true);
    SV_ASSIGN_OR_RETURN(HttpResponse r, http_->Send("GET", target));
    if (r.status != 200) return ErrorFrom(r, what);
    auto page = ParseGcsList(r.body);
    if (!page) return Corruption(what + ": " + page.error().message());
    for (auto& o : page->objects) {
      SV_RETURN_IF_ERROR(sources_internal::AddListed(what, spec_.prefix, o.name,
                                                     o.size, o.generation, &out)
                             .status());
    }
    if (page->next_page_token.empty()) break;
    if (page->next_page_token == token) {
      return Corruption(what + ": the service repeated a page token");
    }
    token = page->next_page_token;
  }
  return out;
}

Result<std::string> GcsSource::ReadRange(const RemoteEntry& e, uint64_t offset,
                                         uint64_t length) {
  if (length == 0) return std::string();
  std::string what = Uri() + e.path;
  std::string target = base_path_ + "/storage/v1/b/" +
                       UriEncode(spec_.bucket, true) + "/o/" +
                       UriEncode(e.locator, true) + "?alt=media";
  if (!e.identity.empty()) target += "&ifGenerationMatch=" + e.identity;
  SV_ASSIGN_OR_RETURN(
      HttpResponse r,
      http_->Send("GET", target, {},
                  {{"Range", "bytes=" + std::to_string(offset) + "-" +
                                 std::to_string(offset + length - 1)}}));
  if (auto body = sources_internal::RangeBody(r, offset, length, what)) {
    return std::move(*body);
  }
  return ErrorFrom(r, what);
}

}  // namespace sealvol
