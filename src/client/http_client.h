// HttpClient: HTTP/1.1 requests to one registry over libcurl, with kept-alive
// connections (a pool of handles, one per request in flight) and retries
// with backoff for failures that may pass (connection refused or reset,
// timeouts, 502/503/504).
//
// The token is sent only to the registry's own URL; redirects are not
// followed. Messages never contain the token.
//
// Thread safety: Send may be called from many threads at once.
#ifndef SEALVOL_CLIENT_HTTP_CLIENT_H_
#define SEALVOL_CLIENT_HTTP_CLIENT_H_

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace sealvol {

struct HttpResponse {
  long status = 0;
  std::string body;
  std::map<std::string, std::string> headers;  // names lowercased
};

struct HttpClientOptions {
  std::string base_url;  // "http://host:port", no trailing slash
  std::string token;     // empty: no Authorization header
  std::string ca_file;   // PEM CAs to trust for https (empty: the system's)
  std::chrono::milliseconds retry_for{15000};  // 0: one attempt
  long connect_timeout_s = 10;
  long low_speed_timeout_s = 60;  // abort below 1 KB/s for this long
};

class HttpClient {
 public:
  explicit HttpClient(HttpClientOptions options);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  const std::string& base_url() const { return options_.base_url; }

  // Sends one request to base_url + path. Returns the response for any
  // HTTP status except 502/503/504 (retried); Unavailable naming the URL
  // when the registry cannot be reached within retry_for.
  Result<HttpResponse> Send(
      const std::string& method, const std::string& path,
      std::string_view body = {},
      const std::vector<std::pair<std::string, std::string>>& headers = {});

 private:
  Result<HttpResponse> SendOnce(
      void* handle, const std::string& method, const std::string& path,
      std::string_view body,
      const std::vector<std::pair<std::string, std::string>>& headers);
  void* Acquire();
  void Release(void* handle);

  HttpClientOptions options_;
  std::mutex mu_;
  std::vector<void*> idle_;  // CURL* handles with live connections
};

}  // namespace sealvol

#endif  // SEALVOL_CLIENT_HTTP_CLIENT_H_
