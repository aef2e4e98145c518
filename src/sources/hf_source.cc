#include "sources/hf_source.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "base/file.h"
#include "hash/digest.h"
#include "sources/sigv4.h"
#include "sources/source_util.h"

namespace sealvol {
namespace {

using sources_internal::Env;

bool IsHex(std::string_view s, size_t len) {
  if (s.size() != len) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// Splits an absolute URL into origin ("http://host:port") and path+query.
bool SplitUrl(const std::string& url, std::string* origin, std::string* host,
              std::string* rest) {
  size_t scheme = url.find("://");
  if (scheme == std::string::npos) return false;
  std::string s = url.substr(0, scheme);
  if (s != "http" && s != "https") return false;
  size_t slash = url.find('/', scheme + 3);
  *origin = url.substr(0, slash);
  std::string authority = origin->substr(scheme + 3);
  if (authority.empty() || authority.find('@') != std::string::npos) {
    return false;
  }
  if (authority[0] == '[') {
    size_t close = authority.find(']');
    if (close == std::string::npos) return false;
    *host = authority.substr(1, close - 1);
  } else {
    *host = authority.substr(0, authority.find(':'));
  }
  *rest = slash == std::string::npos ? "/" : url.substr(slash);
  return true;
}

bool ForbiddenAddress(const struct sockaddr* sa) {
  if (sa->sa_family == AF_INET) {
    uint32_t a =
        ntohl(reinterpret_cast<const sockaddr_in*>(sa)->sin_addr.s_addr);
    return (a >> 16) == ((169u << 8) | 254u);  // 169.254.0.0/16
  }
  if (sa->sa_family == AF_INET6) {
    const uint8_t* b =
        reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr.s6_addr;
    if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) return true;  // fe80::/10
    // fd00:ec2::254, the EC2 metadata service over IPv6.
    static const uint8_t kEc2[16] = {0xfd, 0x00, 0x0e, 0xc2, 0, 0, 0,    0,
                                     0,    0,    0,    0,    0, 0, 0x02, 0x54};
    if (std::equal(b, b + 16, kEc2)) return true;
    // ::ffff:169.254.x.x
    static const uint8_t kMapped[12] = {0, 0, 0, 0, 0,    0,
                                        0, 0, 0, 0, 0xff, 0xff};
    if (std::equal(b, b + 12, kMapped) && b[12] == 169 && b[13] == 254) {
      return true;
    }
  }
  return false;
}

}  // namespace

HfOptions HfOptionsFromEnvironment(const std::string& home) {
  HfOptions o;
  if (!Env("HF_ENDPOINT").empty()) o.endpoint = Env("HF_ENDPOINT");
  while (!o.endpoint.empty() && o.endpoint.back() == '/') o.endpoint.pop_back();
  o.token = Env("HF_TOKEN");
  if (o.token.empty()) o.token = Env("HUGGING_FACE_HUB_TOKEN");
  if (o.token.empty()) {
    std::string path = Env("HF_TOKEN_PATH");
    if (path.empty()) {
      std::string hf_home = Env("HF_HOME");
      path =
          (hf_home.empty() ? home + "/.cache/huggingface" : hf_home) + "/token";
    }
    auto text = ReadFile(path, 4096);
    if (text) {
      std::string t = *text;
      while (!t.empty() &&
             (t.back() == '\n' || t.back() == '\r' || t.back() == ' ')) {
        t.pop_back();
      }
      o.token = t;
    }
  }
  return o;
}

Result<std::vector<HfTreeEntry>> ParseHfTree(std::string_view json) {
  auto j = nlohmann::json::parse(json, nullptr, false);
  if (!j.is_array()) return Corruption("a tree listing must be a JSON array");
  std::vector<HfTreeEntry> out;
  for (const auto& x : j) {
    auto bad = [](const std::string& why) {
      return Corruption("tree listing entry: " + why);
    };
    if (!x.is_object()) return bad("not an object");
    if (!x.contains("type") || !x["type"].is_string() || !x.contains("path") ||
        !x["path"].is_string()) {
      return bad("no type or path");
    }
    HfTreeEntry e;
    e.type = x["type"].get<std::string>();
    e.path = x["path"].get<std::string>();
    if (e.type == "directory") {
      out.push_back(std::move(e));
      continue;
    }
    if (e.type != "file") return bad("unknown type '" + e.type + "'");
    if (!x.contains("size") || !x["size"].is_number_unsigned()) {
      return bad("'" + e.path + "' has no size");
    }
    e.size = x["size"].get<uint64_t>();
    if (x.contains("oid") && x["oid"].is_string()) {
      e.oid = x["oid"].get<std::string>();
    }
    if (x.contains("lfs") && !x["lfs"].is_null()) {
      const auto& l = x["lfs"];
      if (!l.is_object() || !l.contains("oid") || !l["oid"].is_string() ||
          !IsHex(l["oid"].get<std::string>(), 64)) {
        return bad("'" + e.path + "' has a malformed lfs oid");
      }
      e.lfs_oid = l["oid"].get<std::string>();
      if (l.contains("size") && (!l["size"].is_number_unsigned() ||
                                 l["size"].get<uint64_t>() != e.size)) {
        return bad("'" + e.path + "' has an lfs size unlike its size");
      }
    }
    out.push_back(std::move(e));
  }
  return out;
}

std::optional<std::string> LinkNext(std::string_view link) {
  // <url>; rel="next", <url2>; rel="prev"
  size_t pos = 0;
  while (pos < link.size()) {
    size_t open = link.find('<', pos);
    if (open == std::string_view::npos) break;
    size_t close = link.find('>', open);
    if (close == std::string_view::npos) break;
    size_t end = link.find(',', close);
    std::string_view params = link.substr(
        close + 1, end == std::string_view::npos ? std::string_view::npos
                                                 : end - close - 1);
    if (params.find("rel=\"next\"") != std::string_view::npos ||
        params.find("rel=next") != std::string_view::npos) {
      return std::string(link.substr(open + 1, close - open - 1));
    }
    if (end == std::string_view::npos) break;
    pos = end + 1;
  }
  return std::nullopt;
}

bool IsForbiddenRedirectHost(const std::string& host) {
  if (host.empty() || host == "metadata.google.internal" ||
      host == "metadata") {
    return true;
  }
  struct addrinfo hints = {};
  hints.ai_socktype = SOCK_STREAM;
  struct addrinfo* res = nullptr;
  if (::getaddrinfo(host.c_str(), nullptr, &hints, &res) != 0) return false;
  bool bad = false;
  for (auto* a = res; a != nullptr && !bad; a = a->ai_next) {
    bad = ForbiddenAddress(a->ai_addr);
  }
  ::freeaddrinfo(res);
  return bad;
}

HfSource::HfSource(SourceSpec spec, HfOptions options)
    : spec_(std::move(spec)), options_(std::move(options)) {
  HttpClientOptions ho;
  ho.base_url = options_.endpoint;
  ho.token = options_.token;
  ho.retry_for = options_.retry_for;
  hub_ = std::make_unique<HttpClient>(ho);
}

std::string HfSource::Uri() const { return spec_.Uri(); }

std::string HfSource::IdentityScope() const {
  std::string u = spec_.Uri();
  return u.substr(0, u.rfind('@'));
}

Status HfSource::ErrorFrom(const HttpResponse& r,
                           const std::string& what) const {
  std::string msg = what + ": HTTP " + std::to_string(r.status);
  auto j = nlohmann::json::parse(r.body, nullptr, false);
  if (j.is_object() && j.contains("error") && j["error"].is_string()) {
    msg += " (" + j["error"].get<std::string>() + ")";
  }
  switch (r.status) {
    case 401:
      return PermissionDenied(
          msg + (options_.token.empty()
                     ? "; the repo is private, gated or missing: set HF_TOKEN "
                       "to a token that can read it"
                     : "; the token cannot read this repo (private, gated or "
                       "missing)"));
    case 403:
      return PermissionDenied(msg +
                              "; for a gated repo, accept its conditions on "
                              "the hub with the token's account");
    case 404:
      return NotFound(msg);
    default:
      return IOError(msg);
  }
}

HttpClient* HfSource::ClientFor(const std::string& origin) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& c = others_[origin];
  if (!c) {
    HttpClientOptions ho;
    ho.base_url = origin;  // and no token: it never leaves the hub
    ho.retry_for = options_.retry_for;
    c = std::make_unique<HttpClient>(ho);
  }
  return c.get();
}

Result<std::vector<RemoteEntry>> HfSource::List() {
  std::string api = "/api/" + spec_.repo_type + "/" + spec_.repo;
  std::string what = "hf://" + spec_.repo;
  SV_ASSIGN_OR_RETURN(
      HttpResponse rev,
      hub_->Send("GET", api + "/revision/" + UriEncode(spec_.revision, true)));
  if (rev.status != 200) return ErrorFrom(rev, what + "@" + spec_.revision);
  auto info = nlohmann::json::parse(rev.body, nullptr, false);
  if (!info.is_object() || !info.contains("sha") || !info["sha"].is_string() ||
      !IsHex(info["sha"].get<std::string>(), 40)) {
    return Corruption(what + "@" + spec_.revision +
                      ": the hub's revision answer has no commit sha");
  }
  sha_ = info["sha"].get<std::string>();

  std::vector<RemoteEntry> out;
  std::string next = api + "/tree/" + sha_ + "?recursive=true";
  for (int page = 0; !next.empty(); ++page) {
    if (page > 100000) return Corruption(what + ": endless tree listing");
    SV_ASSIGN_OR_RETURN(HttpResponse r, hub_->Send("GET", next));
    if (r.status != 200) return ErrorFrom(r, what + " tree");
    SV_ASSIGN_OR_RETURN(std::vector<HfTreeEntry> entries, ParseHfTree(r.body));
    for (auto& t : entries) {
      if (t.type != "file") continue;
      RemoteEntry e;
      e.path = t.path;
      e.size = t.size;
      e.locator = t.path;
      if (!t.lfs_oid.empty()) {
        e.identity = "sha256:" + t.lfs_oid;
        e.stated_sha256 = *Digest::ParseHex(t.lfs_oid);
      } else {
        e.identity = "git:" + t.oid;
      }
      out.push_back(std::move(e));
    }
    next.clear();
    auto link = r.headers.find("link");
    if (link != r.headers.end()) {
      if (auto n = LinkNext(link->second)) {
        std::string origin, host, rest;
        if (n->rfind("/", 0) == 0) {
          next = *n;
        } else if (SplitUrl(*n, &origin, &host, &rest) &&
                   origin == options_.endpoint) {
          next = rest;
        } else {
          return Corruption(what +
                            ": the tree listing's next page is on "
                            "another host");
        }
      }
    }
  }
  return out;
}

Result<std::string> HfSource::ReadRange(const RemoteEntry& e, uint64_t offset,
                                        uint64_t length) {
  if (length == 0) return std::string();
  std::string prefix = spec_.repo_type == "models" ? "" : "/" + spec_.repo_type;
  std::string path = prefix + "/" + spec_.repo + "/resolve/" + sha_ + "/" +
                     UriEncode(e.locator, false);
  std::string what = "hf://" + spec_.repo + "/" + e.path;
  std::vector<std::pair<std::string, std::string>> headers = {
      {"Range", "bytes=" + std::to_string(offset) + "-" +
                    std::to_string(offset + length - 1)}};
  HttpClient* client = hub_.get();
  for (int hop = 0;; ++hop) {
    SV_ASSIGN_OR_RETURN(HttpResponse r, client->Send("GET", path, {}, headers));
    if (auto body = sources_internal::RangeBody(r, offset, length, what)) {
      return std::move(*body);
    }
    if (r.status != 301 && r.status != 302 && r.status != 303 &&
        r.status != 307 && r.status != 308) {
      return ErrorFrom(r, what);
    }
    if (hop >= 5) return IOError(what + ": too many redirects");
    auto loc = r.headers.find("location");
    if (loc == r.headers.end() || loc->second.empty()) {
      return IOError(what + ": a redirect without a Location");
    }
    std::string origin, host, rest;
    if (loc->second[0] == '/') {
      path = loc->second;  // same origin as this hop
      continue;
    }
    if (!SplitUrl(loc->second, &origin, &host, &rest)) {
      return PermissionDenied(what + ": refusing a redirect to '" +
                              loc->second.substr(0, 200) + "'");
    }
    if (IsForbiddenRedirectHost(host)) {
      return PermissionDenied(what + ": refusing a redirect to " + host +
                              " (a link-local or metadata address)");
    }
    client = origin == options_.endpoint ? hub_.get() : ClientFor(origin);
    path = rest;
  }
}

}  // namespace sealvol
