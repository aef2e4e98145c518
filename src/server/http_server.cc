#include "server/http_server.h"

#include <algorithm>
#include <atomic>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <cstdio>
#include <ctime>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>
#include <vector>

#include "format/manifest.h"

namespace sealvol::server {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

constexpr uint32_t kHeaderLimit = 16 << 10;

}  // namespace

// What shutdown needs of a session, whatever its stream.
class SessionBase {
 public:
  virtual ~SessionBase() = default;
  // Posts CloseIfIdle to the session's strand.
  virtual void PostCloseIfIdle() = 0;
};

struct HttpServer::Impl {
  Impl(Api* a, Metrics* m, ServerOptions opts)
      : api(a), metrics(m), o(std::move(opts)) {}
  Api* api;
  Metrics* metrics;
  ServerOptions o;
  ~Impl() {
    // Handlers still queued when Run returned (connections cut off at the
    // end of the grace period) own sessions whose destructors use this
    // object: destroy them, with the acceptor, while it is whole.
    acceptor.reset();
    ioc_owner.reset();
  }
  std::unique_ptr<asio::io_context> ioc_owner =
      std::make_unique<asio::io_context>();
  asio::io_context& ioc = *ioc_owner;
  std::optional<tcp::acceptor> acceptor{std::in_place, ioc};
  std::atomic<bool> stopping{false};
  std::atomic<int64_t> live{0};
  std::mutex mu;
  uint64_t next_id = 0;
  std::map<uint64_t, std::weak_ptr<SessionBase>> sessions;  // under mu
  std::unique_ptr<asio::ssl::context> tls;  // set when serving HTTPS

  void Accept();
  void WatchShutdown(Clock::time_point deadline);
};

// One connection. Stream is beast::tcp_stream (HTTP) or an ssl_stream over
// one (HTTPS); everything but the handshake is the same.
template <class Stream>
class Session : public SessionBase,
                public std::enable_shared_from_this<Session<Stream>> {
  static constexpr bool kTls = !std::is_same_v<Stream, beast::tcp_stream>;

 public:
  template <class... Args>
  Session(HttpServer::Impl* srv, tcp::socket socket, Args&&... args)
      : srv_(srv), stream_(std::move(socket), std::forward<Args>(args)...) {
    beast::error_code ec;
    auto ep = Tcp().socket().remote_endpoint(ec);
    remote_ = ec ? "-" : ep.address().to_string();
    ++srv_->live;
    srv_->metrics->ConnectionOpened();
  }
  ~Session() {
    {
      std::lock_guard<std::mutex> lock(srv_->mu);
      srv_->sessions.erase(id_);
    }
    srv_->metrics->ConnectionClosed();
    --srv_->live;
  }

  void Start() {
    {
      std::lock_guard<std::mutex> lock(srv_->mu);
      id_ = srv_->next_id++;
      srv_->sessions[id_] = this->weak_from_this();
    }
    if constexpr (kTls) {
      Tcp().expires_after(srv_->o.read_timeout);
      stream_.async_handshake(
          asio::ssl::stream_base::server,
          [self = this->shared_from_this()](beast::error_code ec) {
            if (ec) return self->Close();  // not TLS, or a bad client
            self->ReadHeader();
          });
    } else {
      ReadHeader();
    }
  }

  void PostCloseIfIdle() override {
    asio::post(Tcp().get_executor(),
               [self = this->shared_from_this()] { self->CloseIfIdle(); });
  }

 private:
  beast::tcp_stream& Tcp() { return beast::get_lowest_layer(stream_); }

  // Shutdown: a connection waiting for its next request goes now; one
  // serving a request closes after answering it.
  void CloseIfIdle() {
    if (!busy_) Tcp().cancel();
  }

  void ReadHeader() {
    busy_ = false;
    if (srv_->stopping) return Close();
    parser_.emplace();
    parser_->header_limit(kHeaderLimit);
    // The parser checks Content-Length against this as it reads the
    // header, so it is the largest any route takes; OnHeader then applies
    // the route's own limit.
    parser_->body_limit(std::max(kMaxEnvelopeSize, kMaxManifestBytes));
    Tcp().expires_after(srv_->o.idle_timeout);
    http::async_read_header(stream_, buffer_, *parser_,
                            beast::bind_front_handler(
                                &Session::OnHeader, this->shared_from_this()));
  }

  void OnHeader(beast::error_code ec, size_t) {
    if (ec) {
      if (ec == http::error::header_limit) {
        busy_ = true;
        start_ = Clock::now();
        return Reply(431, "request headers exceed 16 KiB", false);
      }
      if (ec == http::error::body_limit) {
        busy_ = true;
        start_ = Clock::now();
        return Reply(413, "request body exceeds the largest blob", false);
      }
      return Close();  // idle timeout, peer closed, shutdown, garbage
    }
    busy_ = true;
    start_ = Clock::now();
    auto& req = parser_->get();
    method_ = std::string(req.method_string());
    target_ = std::string(req.target());
    uint64_t limit = Api::BodyLimit(method_, target_);
    if (auto len = parser_->content_length(); len && *len > limit) {
      return Reply(413,
                   "request body of " + std::to_string(*len) +
                       " bytes exceeds this route's limit of " +
                       std::to_string(limit),
                   false);
    }
    parser_->body_limit(limit);
    // Beast reads at most the buffer's free capacity at a time, and a
    // fresh buffer has 512 bytes: a 4 MiB blob would take 8,000 reads.
    // Large bodies get a large buffer, given back after the request, so
    // idle connections stay small.
    if (auto len = parser_->content_length(); len && *len > (64u << 10)) {
      buffer_.reserve(1u << 20);
      req.body().reserve(*len);  // within the limit checked above
    }
    if (req[http::field::expect] == "100-continue") {
      continue_.emplace(http::status::continue_, 11);
      Tcp().expires_after(srv_->o.read_timeout);
      return http::async_write(
          stream_, *continue_,
          [self = this->shared_from_this()](beast::error_code ec, size_t) {
            if (ec) return self->Close();
            self->ReadBody();
          });
    }
    ReadBody();
  }

  void ReadBody() {
    Tcp().expires_after(srv_->o.read_timeout);
    http::async_read(
        stream_, buffer_, *parser_,
        beast::bind_front_handler(&Session::OnBody, this->shared_from_this()));
  }

  void OnBody(beast::error_code ec, size_t) {
    if (ec == http::error::body_limit) {
      return Reply(413, "request body exceeds this route's limit", false);
    }
    if (ec) return Close();  // a client too slow or gone: nothing to answer
    auto& req = parser_->get();
    ApiRequest ar;
    ar.method = method_;
    ar.target = target_;
    ar.authorization = std::string(req[http::field::authorization]);
    ar.annotations = std::string(req["Sealvol-Annotations"]);
    ar.body = std::move(req.body());
    bytes_in_ = ar.body.size();
    ApiResponse r;
    try {
      r = srv_->api->Handle(ar);
    } catch (const std::exception& e) {
      // A bug must cost one request, not the server.
      r = ApiResponse();
      r.status = 500;
      r.body =
          "{\"error\":{\"code\":\"internal\",\"message\":"
          "\"internal error (see the server log)\"}}\n";
      std::fprintf(stderr, "sealvol: request %s %s failed: %s\n",
                   method_.c_str(), target_.substr(0, 200).c_str(), e.what());
    }
    Send(std::move(r), req.keep_alive());
  }

  void Reply(int status, const std::string& message, bool keep_alive) {
    ApiResponse r;
    r.status = status;
    r.body = "{\"error\":{\"code\":\"too_large\",\"message\":\"" + message +
             "\"}}\n";
    Send(std::move(r), keep_alive);
  }

  void Send(ApiResponse r, bool keep_alive) {
    keep_alive = keep_alive && !srv_->stopping;
    route_ = std::move(r.route);
    actor_ = std::move(r.actor);
    res_.emplace(static_cast<http::status>(r.status), 11);
    res_->set(http::field::server, "sealvol/0.1.0");
    res_->set(http::field::content_type, r.content_type);
    for (auto& [k, v] : r.headers) res_->set(k, v);
    res_->body() = std::move(r.body);
    res_->keep_alive(keep_alive);
    res_->prepare_payload();
    Tcp().expires_after(srv_->o.read_timeout);
    http::async_write(stream_, *res_,
                      [self = this->shared_from_this(), keep_alive](
                          beast::error_code ec, size_t n) {
                        self->OnWrite(ec, n, keep_alive);
                      });
  }

  void OnWrite(beast::error_code ec, size_t bytes_out, bool keep_alive) {
    double secs = std::chrono::duration<double>(Clock::now() - start_).count();
    int status = res_->result_int();
    srv_->metrics->Request(route_, status, bytes_in_, bytes_out, secs);
    if (srv_->o.access_log) {
      char line[512];
      std::string path = target_.substr(0, target_.find('?'));
      if (path.size() > 300) path = path.substr(0, 300) + "...";
      std::snprintf(line, sizeof(line), "%s %s \"%s %s\" %d %llu %zu %.1fms",
                    remote_.c_str(), actor_.c_str(), method_.c_str(),
                    path.c_str(), status, (unsigned long long)bytes_in_,
                    bytes_out, secs * 1000);
      srv_->o.access_log(line);
    }
    res_.reset();
    bytes_in_ = 0;
    if (buffer_.capacity() > (64u << 10)) buffer_.shrink_to_fit();
    if (ec || !keep_alive) return Close();
    ReadHeader();
  }

  void Close() {
    busy_ = false;
    beast::error_code ec;
    // (TLS: no close_notify; the answer was complete and framed.)
    Tcp().socket().shutdown(tcp::socket::shutdown_send, ec);
    Tcp().close();
  }

  HttpServer::Impl* srv_;
  Stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::optional<http::response<http::empty_body>> continue_;
  std::optional<http::response<http::string_body>> res_;
  uint64_t id_ = 0;
  bool busy_ = false;
  std::string remote_, method_, target_, route_, actor_;
  uint64_t bytes_in_ = 0;
  Clock::time_point start_;
};

void HttpServer::Impl::Accept() {
  acceptor->async_accept(asio::make_strand(ioc), [this](beast::error_code ec,
                                                        tcp::socket s) {
    if (ec) {
      if (!stopping && ec != asio::error::operation_aborted) Accept();
      return;
    }
    // Answers go out at once, not held for the client's next ACK.
    s.set_option(tcp::no_delay(true), ec);
    if (tls) {
      std::make_shared<Session<beast::ssl_stream<beast::tcp_stream>>>(
          this, std::move(s), *tls)
          ->Start();
    } else {
      std::make_shared<Session<beast::tcp_stream>>(this, std::move(s))->Start();
    }
    Accept();
  });
}

// Polls until every connection is gone or the grace period is over.
void HttpServer::Impl::WatchShutdown(Clock::time_point deadline) {
  if (live == 0 || Clock::now() >= deadline) {
    ioc.stop();
    return;
  }
  auto t =
      std::make_shared<asio::steady_timer>(ioc, std::chrono::milliseconds(50));
  t->async_wait(
      [this, t, deadline](beast::error_code) { WatchShutdown(deadline); });
}

HttpServer::HttpServer(Api* api, Metrics* metrics, ServerOptions options)
    : impl_(std::make_unique<Impl>(api, metrics, std::move(options))) {}

HttpServer::~HttpServer() = default;

Result<uint16_t> HttpServer::Start() {
  beast::error_code ec;
  if (!impl_->o.tls_cert.empty()) {
    auto ctx =
        std::make_unique<asio::ssl::context>(asio::ssl::context::tls_server);
    ctx->set_options(
        asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
        asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
        asio::ssl::context::no_tlsv1_1);
    ctx->use_certificate_chain_file(impl_->o.tls_cert, ec);
    if (ec) {
      return InvalidArgument("TLS certificate " + impl_->o.tls_cert + ": " +
                             ec.message());
    }
    ctx->use_private_key_file(impl_->o.tls_key, asio::ssl::context::pem, ec);
    if (ec) {
      return InvalidArgument("TLS key " + impl_->o.tls_key + ": " +
                             ec.message());
    }
    impl_->tls = std::move(ctx);
  }
  auto addr = asio::ip::make_address(impl_->o.host, ec);
  if (ec) {
    // A host name: resolve it (loopback names such as "localhost").
    tcp::resolver resolver(impl_->ioc);
    auto results = resolver.resolve(impl_->o.host, "", ec);
    if (ec || results.empty()) {
      return InvalidArgument("cannot resolve listen host '" + impl_->o.host +
                             "'");
    }
    addr = results.begin()->endpoint().address();
  }
  tcp::endpoint ep(addr, impl_->o.port);
  auto& a = *impl_->acceptor;
  a.open(ep.protocol(), ec);
  if (!ec) a.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) a.bind(ep, ec);
  if (!ec) a.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return Unavailable("listen on " + impl_->o.host + ":" +
                       std::to_string(impl_->o.port) + ": " + ec.message());
  }
  impl_->Accept();
  return a.local_endpoint().port();
}

void HttpServer::Run() {
  unsigned n = impl_->o.threads;
  if (n == 0) n = std::max(4u, 2 * std::thread::hardware_concurrency());
  std::vector<std::thread> threads;
  for (unsigned i = 1; i < n; ++i) {
    threads.emplace_back([this] { impl_->ioc.run(); });
  }
  impl_->ioc.run();
  for (auto& t : threads) t.join();
}

void HttpServer::Stop() {
  if (impl_->stopping.exchange(true)) return;
  Impl* s = impl_.get();
  asio::post(s->ioc, [s] {
    beast::error_code ec;
    s->acceptor->close(ec);
    s->WatchShutdown(Clock::now() + s->o.shutdown_grace);
  });
  std::vector<std::shared_ptr<SessionBase>> live;
  {
    std::lock_guard<std::mutex> lock(s->mu);
    for (auto& [id, w] : s->sessions) {
      if (auto p = w.lock()) live.push_back(std::move(p));
    }
  }
  for (auto& p : live) p->PostCloseIfIdle();
}

}  // namespace sealvol::server
