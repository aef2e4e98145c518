// HttpServer: the registry API over HTTP/1.1 (Boost.Beast, asynchronous).
// Each connection is a chain of asynchronous reads and writes on its own
// strand, so idle keep-alive connections cost a socket and a little memory,
// never a thread. Requests are answered by Api::Handle on the I/O threads.
//
// Limits: request headers 16 KiB; bodies per Api::BodyLimit (413 before any
// body byte is read when Content-Length says more); a connection idle for
// `idle_timeout` or a request not read within `read_timeout` is closed.
//
// With a certificate and key it speaks HTTPS (TLS 1.2 and later) instead.
//
// Stop() is graceful: it stops accepting, closes idle connections, lets
// requests in progress finish (up to `shutdown_grace`), then returns from
// Run().
//
// Thread safety: Start, then Run on one thread; Stop from any thread.
#ifndef SEALVOL_SERVER_HTTP_SERVER_H_
#define SEALVOL_SERVER_HTTP_SERVER_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "base/status.h"
#include "server/api.h"

namespace sealvol::server {

struct ServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 5000;  // 0 picks a free port (Start returns it)
  unsigned threads = 0;  // I/O threads; 0 = max(4, 2 x cores)
  std::chrono::seconds read_timeout{60};
  std::chrono::seconds idle_timeout{120};
  std::chrono::seconds shutdown_grace{30};
  // HTTPS when both are set: a PEM certificate chain and its private key.
  std::string tls_cert;
  std::string tls_key;
  // One line per request; never sees tokens.
  std::function<void(const std::string&)> access_log;
};

class HttpServer {
 public:
  HttpServer(Api* api, Metrics* metrics, ServerOptions options);
  ~HttpServer();

  // Binds and listens. Returns the port (useful with port 0).
  Result<uint16_t> Start();
  // Serves until Stop() has finished.
  void Run();
  void Stop();

  struct Impl;  // the Beast state, private to http_server.cc

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace sealvol::server

#endif  // SEALVOL_SERVER_HTTP_SERVER_H_
