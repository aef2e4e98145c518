// HttpClient: HTTP/1.1 requests to one registry (one URL, or several
// replicas of it) over libcurl, with kept-alive connections (a pool of
// handles, one per request in flight) and retries with backoff for failures
// that may pass (connection refused or reset, timeouts, 502/503/504); a
// failure moves to the next replica.
//
// The token is sent only to the registry's own URL; redirects are not
// followed here (RemoteBlobStore follows a blob redirect with GetRedirected,
// which sends no token). Messages never contain the token.
//
// Thread safety: Send may be called from many threads at once.
#ifndef SEALVOL_CLIENT_HTTP_CLIENT_H_
#define SEALVOL_CLIENT_HTTP_CLIENT_H_

#include <atomic>
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
  // "http://host:port"; several replicas of one registry as
  // "URL,URL,...": a request that cannot reach one goes to the next.
  std::string base_url;
  std::string token;    // empty: no Authorization header
  std::string ca_file;  // PEM CAs to trust for https (empty: the system's)
  std::chrono::milliseconds retry_for{15000};  // 0: one attempt
  // Answers retried like a failed connection (S3 adds 429 and 500).
  std::vector<long> retry_statuses = {502, 503, 504};
  std::string server_name = "registry";  // in messages: "registry unreachable"
  long connect_timeout_s = 10;
  long low_speed_timeout_s = 60;  // abort below 1 KB/s for this long
};

class HttpClient {
 public:
  explicit HttpClient(HttpClientOptions options);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // The replica in use now.
  const std::string& base_url() const { return urls_[current_.load()]; }

  // Sends one request to base_url + path. Returns the response for any
  // HTTP status except 502/503/504 (retried); Unavailable naming the URL
  // when the registry cannot be reached within retry_for.
  Result<HttpResponse> Send(
      const std::string& method, const std::string& path,
      std::string_view body = {},
      const std::vector<std::pair<std::string, std::string>>& headers = {});

  // GETs an absolute URL the registry redirected to (a presigned URL into
  // object storage), without the token, with the same retries. Messages
  // leave out the URL's query (its signature).
  Result<HttpResponse> GetRedirected(const std::string& url);

 private:
  // `registry`: `target` is a path on the current replica, sent with the
  // token; else an absolute URL, sent without.
  Result<HttpResponse> SendWithRetries(
      const std::string& method, const std::string& target, bool registry,
      std::string_view body,
      const std::vector<std::pair<std::string, std::string>>& headers);
  Result<HttpResponse> SendOnce(
      void* handle, const std::string& method, const std::string& url,
      bool with_token, std::string_view body,
      const std::vector<std::pair<std::string, std::string>>& headers);
  void* Acquire();
  void Release(void* handle);

  HttpClientOptions options_;
  std::vector<std::string> urls_;   // never empty
  std::atomic<size_t> current_{0};  // index into urls_
  std::mutex mu_;
  std::vector<void*> idle_;  // CURL* handles with live connections
};

}  // namespace sealvol

#endif  // SEALVOL_CLIENT_HTTP_CLIENT_H_
