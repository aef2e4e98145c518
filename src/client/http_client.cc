#include "client/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <thread>

#include "store/blob_store.h"

namespace sealvol {
namespace {

size_t OnBody(char* data, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

size_t OnHeader(char* data, size_t size, size_t n, void* user) {
  std::string_view line(data, size * n);
  size_t colon = line.find(':');
  if (colon != std::string_view::npos) {
    std::string name(line.substr(0, colon));
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
      value.remove_prefix(1);
    while (!value.empty() && (value.back() == '\r' || value.back() == '\n'))
      value.remove_suffix(1);
    auto* resp = static_cast<HttpResponse*>(user);
    if (name == "content-length") {
      // One allocation for the body instead of a doubling series.
      uint64_t n = std::strtoull(std::string(value).c_str(), nullptr, 10);
      if (n <= (kMaxEnvelopeSize)) resp->body.reserve(n);
    }
    resp->headers[name] = value;
  }
  return size * n;
}

struct GlobalInit {
  GlobalInit() { curl_global_init(CURL_GLOBAL_DEFAULT); }
};

}  // namespace

HttpClient::HttpClient(HttpClientOptions options)
    : options_(std::move(options)) {
  static GlobalInit init;
  // "URL[,URL...]": replicas of one registry, tried in turn.
  size_t start = 0;
  for (;;) {
    size_t comma = options_.base_url.find(',', start);
    std::string u = options_.base_url.substr(
        start, comma == std::string::npos ? std::string::npos : comma - start);
    while (!u.empty() && u.back() == '/') u.pop_back();
    if (!u.empty()) urls_.push_back(u);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (urls_.empty()) urls_.push_back("");
}

HttpClient::~HttpClient() {
  for (void* h : idle_) curl_easy_cleanup(static_cast<CURL*>(h));
}

void* HttpClient::Acquire() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!idle_.empty()) {
      void* h = idle_.back();
      idle_.pop_back();
      return h;
    }
  }
  return curl_easy_init();
}

void HttpClient::Release(void* handle) {
  std::lock_guard<std::mutex> lock(mu_);
  idle_.push_back(handle);
}

// A presigned URL's query is a credential for as long as it lives: messages
// show the URL without it.
static std::string RedactQuery(const std::string& url) {
  size_t q = url.find('?');
  return q == std::string::npos ? url : url.substr(0, q) + "?…";
}

Result<HttpResponse> HttpClient::SendOnce(
    void* handle, const std::string& method, const std::string& url,
    bool with_token, std::string_view body,
    const std::vector<std::pair<std::string, std::string>>& headers) {
  CURL* c = static_cast<CURL*>(handle);
  curl_easy_reset(c);  // keeps the connection
  HttpResponse resp;
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, options_.connect_timeout_s);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1024L);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, options_.low_speed_timeout_s);
  curl_easy_setopt(c, CURLOPT_TCP_NODELAY, 1L);
  if (!options_.ca_file.empty()) {
    curl_easy_setopt(c, CURLOPT_CAINFO, options_.ca_file.c_str());
  }
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &resp.body);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, OnHeader);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &resp);
  if (method == "GET") {
    curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
  } else if (method == "HEAD") {
    curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
  } else {
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.c_str());
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(body.size()));
  }
  struct curl_slist* list = nullptr;
  list = curl_slist_append(list, "Expect:");  // no 100-continue round trip
  std::string auth;
  if (with_token && !options_.token.empty()) {
    auth = "Authorization: Bearer " + options_.token;
    list = curl_slist_append(list, auth.c_str());
  }
  for (const auto& [k, v] : headers) {
    list = curl_slist_append(list, (k + ": " + v).c_str());
  }
  if (method != "GET" && body.size() > 0) {
    bool typed = false;
    for (const auto& [k, v] : headers) typed |= k == "Content-Type";
    if (!typed) {
      list = curl_slist_append(list, "Content-Type: application/octet-stream");
    }
  }
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, list);
  CURLcode rc = curl_easy_perform(c);
  curl_slist_free_all(list);
  std::fill(auth.begin(), auth.end(), '\0');
  if (rc != CURLE_OK) {
    std::string what =
        method + " " + RedactQuery(url) + ": " + curl_easy_strerror(rc);
    switch (rc) {
      // Retrying cannot fix these.
      case CURLE_PEER_FAILED_VERIFICATION:
      case CURLE_SSL_CACERT_BADFILE:
        return PermissionDenied(what +
                                " (the registry's certificate is not trusted: "
                                "set the remote's ca_file or SEALVOL_CA_FILE)");
      case CURLE_UNSUPPORTED_PROTOCOL:
      case CURLE_URL_MALFORMAT:
        return InvalidArgument(what);
      default:
        return Unavailable(what);
    }
  }
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &resp.status);
  return resp;
}

Result<HttpResponse> HttpClient::Send(
    const std::string& method, const std::string& path, std::string_view body,
    const std::vector<std::pair<std::string, std::string>>& headers) {
  return SendWithRetries(method, path, true, body, headers);
}

Result<HttpResponse> HttpClient::GetRedirected(const std::string& url) {
  if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) {
    return Corruption("the registry redirected to a non-HTTP URL");
  }
  return SendWithRetries("GET", url, false, {}, {});
}

Result<HttpResponse> HttpClient::SendWithRetries(
    const std::string& method, const std::string& target, bool registry,
    std::string_view body,
    const std::vector<std::pair<std::string, std::string>>& headers) {
  auto deadline = std::chrono::steady_clock::now() + options_.retry_for;
  auto backoff = std::chrono::milliseconds(100);
  size_t switches = 0;
  for (;;) {
    size_t replica = current_.load();
    std::string url = registry ? urls_[replica] + target : target;
    bool with_token = registry;
    void* h = Acquire();
    if (h == nullptr) return IOError("cannot create an HTTP handle");
    auto r = SendOnce(h, method, url, with_token, body, headers);
    Release(h);
    Status failure;
    if (!r) {
      if (r.error().code() != StatusCode::kUnavailable) return r.error();
      failure = r.error();
    } else if (std::find(options_.retry_statuses.begin(),
                         options_.retry_statuses.end(),
                         r->status) != options_.retry_statuses.end()) {
      failure =
          Unavailable(method + " " + RedactQuery(url) +
                      ": the server answered " + std::to_string(r->status));
    } else {
      return r;
    }
    // Another replica of the registry, if there is one, gets the next try
    // at once; the backoff starts when every replica has failed once.
    if (registry && urls_.size() > 1) {
      size_t next = (replica + 1) % urls_.size();
      current_.compare_exchange_strong(replica, next);
      if (++switches < urls_.size()) continue;
      switches = 0;
    }
    if (std::chrono::steady_clock::now() + backoff > deadline) {
      return Unavailable(failure.message() + " (" + options_.server_name +
                         " unreachable; gave up after retrying)");
    }
    std::this_thread::sleep_for(backoff);
    backoff = std::min(backoff * 2, std::chrono::milliseconds(2000));
  }
}

}  // namespace sealvol
