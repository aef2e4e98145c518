#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <mutex>
#include <thread>

#include "base/file.h"
#include "cli/backends.h"
#include "cli/commands.h"
#include "server/http_server.h"
#include "server/sync_jobs.h"

namespace sealvol::cli {
namespace {

struct ServeArgs {
  std::string listen = "127.0.0.1:5000";
  std::string tokens;
  std::string access_log = "-";
  std::string port_file;
  unsigned threads = 0;
  int64_t grace = 30;
  int64_t read_timeout = 60;
  std::string tls_cert;
  std::string tls_key;
  int64_t idle_timeout = 120;
  unsigned sync_jobs = 2;
  BackendFlags backends;
  bool migrate_only = false;
  bool redirect_blobs = false;
  int64_t redirect_ttl = 300;
};

bool IsLoopback(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

Status Serve(const Globals& g, const ServeArgs& a, EmbeddedStore& st) {
  server::ServerOptions o;
  size_t colon = a.listen.rfind(':');
  if (colon == std::string::npos) {
    return InvalidArgument("--listen wants HOST:PORT, got '" + a.listen + "'");
  }
  o.host = a.listen.substr(0, colon);
  if (o.host.size() > 2 && o.host.front() == '[') {
    o.host = o.host.substr(1, o.host.size() - 2);
  }
  try {
    int port = std::stoi(a.listen.substr(colon + 1));
    if (port < 0 || port > 65535) throw std::out_of_range("port");
    o.port = static_cast<uint16_t>(port);
  } catch (const std::exception&) {
    return InvalidArgument("--listen: bad port in '" + a.listen + "'");
  }
  o.threads = a.threads;
  o.shutdown_grace = std::chrono::seconds(a.grace);
  o.read_timeout = std::chrono::seconds(a.read_timeout);
  if (a.tls_cert.empty() != a.tls_key.empty()) {
    return InvalidArgument("--tls-cert and --tls-key go together");
  }
  o.tls_cert = a.tls_cert;
  o.tls_key = a.tls_key;
  o.idle_timeout = std::chrono::seconds(a.idle_timeout);

  server::TokenTable tokens = server::TokenTable::Open();
  if (!a.tokens.empty()) {
    SV_ASSIGN_OR_RETURN(tokens, server::TokenTable::Load(a.tokens));
  } else if (!IsLoopback(o.host)) {
    return InvalidArgument(
        "refusing to serve " + o.host +
        " without --tokens: anyone could read and write. Give a tokens file "
        "(docs/registry.md), or listen on 127.0.0.1");
  }

  FILE* log = stderr;
  if (a.access_log != "-") {
    log = std::fopen(a.access_log.c_str(), "a");
    if (log == nullptr) return ErrnoStatus(errno, "access log " + a.access_log);
  }
  auto mu = std::make_shared<std::mutex>();
  o.access_log = [log, mu](const std::string& line) {
    std::lock_guard<std::mutex> lock(*mu);
    std::fprintf(log, "%s %s\n", FormatTime(time(nullptr)).c_str(),
                 line.c_str());
    std::fflush(log);
  };

  SV_ASSIGN_OR_RETURN(auto backends, Backends::Open(a.backends, st));
  if (a.migrate_only) {
    std::cerr << "sealvol: " << backends->description()
              << ": schema is current\n";
    return Status::Ok();
  }
  if (a.redirect_blobs && backends->s3() == nullptr) {
    return InvalidArgument(
        "--redirect-blobs needs --blobs s3://...: only a bucket can serve "
        "presigned URLs");
  }
  Registry& registry = backends->registry();
  // Versions committed before namespaces had links (or by an older
  // sealvol) become visible through their namespace.
  SV_ASSIGN_OR_RETURN(uint64_t linked, registry.LinkUnlinkedVersions());
  if (linked > 0) {
    std::cerr << "sealvol: linked " << linked
              << " existing versions to their namespaces\n";
  }

  // Signals are taken by one thread (blocked everywhere else, so before
  // any thread starts); it asks the server to stop gracefully.
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGTERM);
  sigaddset(&sigs, SIGINT);
  sigaddset(&sigs, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &sigs, nullptr);
  ::signal(SIGPIPE, SIG_IGN);

  // Sync jobs read sources with this process's credentials and endpoints
  // (its environment), never ones from a request. Declared before the API
  // and the HTTP server, so it is destroyed (cancelling its jobs) after
  // they stop.
  std::unique_ptr<server::SyncJobs> sync_jobs;
  if (a.sync_jobs > 0) {
    SyncRequest base;
    const char* home = std::getenv("HOME");
    base.flags.home = home ? home : "/";
    base.flags.s3.retry_for = ClientRetryFor();
    base.publish.threads =
        std::max(4u, 2 * std::thread::hardware_concurrency());
    base.annotations = {{"host", HostName()}};
    sync_jobs =
        std::make_unique<server::SyncJobs>(&registry, base, a.sync_jobs);
  }
  server::Metrics metrics;
  server::Api api(&backends->blobs(), &backends->meta(), &tokens, &metrics);
  api.SetSyncJobs(sync_jobs.get());
  if (a.redirect_blobs) {
    S3BlobStore* s3 = backends->s3();
    int64_t ttl = a.redirect_ttl;
    api.SetBlobRedirect(
        [s3, ttl](const Digest& d) { return s3->PresignGet(d, ttl); });
  }
  server::HttpServer http(&api, &metrics, o);
  SV_ASSIGN_OR_RETURN(uint16_t port, http.Start());
  if (!a.port_file.empty()) {
    SV_RETURN_IF_ERROR(
        WriteFileAtomically(a.port_file, std::to_string(port) + "\n"));
  }
  std::string url =
      std::string(o.tls_cert.empty() ? "http://" : "https://") +
      (o.host.find(':') != std::string::npos ? "[" + o.host + "]" : o.host) +
      ":" + std::to_string(port);
  if (g.json) {
    std::cout << nlohmann::json{{"url", url},
                                {"store", st.root()},
                                {"backends", backends->description()},
                                {"tokens", tokens.size()},
                                {"pid", getpid()}}
                     .dump()
              << std::endl;
  }
  std::cerr << "sealvol: serving " << backends->description() << " at " << url
            << " ("
            << (tokens.open() ? "no auth: loopback only"
                              : std::to_string(tokens.size()) + " tokens")
            << "); SIGTERM stops gracefully\n";

  std::thread waiter([&] {
    int sig = 0;
    sigwait(&sigs, &sig);
    std::cerr << "sealvol: signal " << sig
              << ", finishing requests in progress\n";
    http.Stop();
  });
  http.Run();
  waiter.join();
  std::cerr << "sealvol: stopped\n";
  return Status::Ok();
}

}  // namespace

void RegisterServe(CLI::App& app, Globals& g) {
  auto a = std::make_shared<ServeArgs>();
  auto* cmd = app.add_subcommand(
      "serve",
      "Serve the store as a registry over HTTP (docs/registry.md): publish "
      "from one machine, mount on another.");
  cmd->add_option("--listen", a->listen, "HOST:PORT to listen on (port 0: any)")
      ->capture_default_str();
  cmd->add_option("--tokens", a->tokens,
                  "Tokens file: TOKEN NAME ACCESS:PATTERN... per line. "
                  "Without it the server is open and listens on loopback only")
      ->check(CLI::ExistingFile);
  cmd->add_option("--access-log", a->access_log,
                  "Access log file, one line per request ('-': stderr)")
      ->capture_default_str();
  cmd->add_option("--port-file", a->port_file,
                  "Write the port listened on here once ready");
  cmd->add_option("--threads", a->threads, "I/O threads (0: 2 per core, >= 4)")
      ->capture_default_str();
  cmd->add_option("--tls-cert", a->tls_cert,
                  "Serve HTTPS with this PEM certificate chain")
      ->check(CLI::ExistingFile);
  cmd->add_option("--tls-key", a->tls_key, "The certificate's PEM private key")
      ->check(CLI::ExistingFile);
  cmd->add_option("--read-timeout", a->read_timeout,
                  "Seconds a client gets to send a request (header and "
                  "body) or to take an answer")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--idle-timeout", a->idle_timeout,
                  "Seconds an idle keep-alive connection is kept")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--shutdown-grace", a->grace,
                  "Seconds requests in progress get to finish on SIGTERM")
      ->capture_default_str();
  cmd->add_option("--sync-jobs", a->sync_jobs,
                  "Sync jobs run at once for clients' `sync --on-server` "
                  "(with this process's credentials); 0 turns them off")
      ->capture_default_str();
  AddBackendOptions(cmd, &a->backends);
  cmd->add_flag("--migrate", a->migrate_only,
                "Apply pending PostgreSQL schema migrations (--meta) and exit. "
                "serve also applies them on start");
  cmd->add_flag("--redirect-blobs", a->redirect_blobs,
                "Answer blob downloads with a presigned URL into the bucket "
                "(--blobs s3://...), so bytes flow from object storage to "
                "clients directly");
  cmd->add_option("--redirect-ttl", a->redirect_ttl,
                  "Seconds a presigned blob URL stays valid")
      ->capture_default_str()
      ->check(CLI::Range(10, 604800));
  cmd->add_flag("--json", g.json, "Print the URL and pid as JSON when ready");
  cmd->callback([&g, a] {
    Run(g, EmbeddedStore::Lock::kNone,
        [&](EmbeddedStore& st) { return Serve(g, *a, st); });
  });
}

}  // namespace sealvol::cli
