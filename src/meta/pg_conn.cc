#include "meta/pg_conn.h"

#include <libpq-fe.h>

#include <chrono>
#include <cstring>
#include <thread>

namespace sealvol::pg {
namespace {

PGconn* H(void* p) { return static_cast<PGconn*>(p); }

// The URL with any password replaced, for messages.
std::string Display(const std::string& url) {
  size_t scheme = url.find("://");
  size_t at = url.find('@');
  if (scheme == std::string::npos || at == std::string::npos) {
    return url.find("password") == std::string::npos ? url
                                                     : "(connection string)";
  }
  size_t colon = url.find(':', scheme + 3);
  if (colon != std::string::npos && colon < at) {
    return url.substr(0, colon) + ":***" + url.substr(at);
  }
  return url;
}

std::string Trim(const char* msg) {
  std::string s = msg ? msg : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

PgConn::~PgConn() { PQfinish(H(handle_)); }

bool PgConn::broken() const { return PQstatus(H(handle_)) != CONNECTION_OK; }

Result<Rows> PgConn::Exec(const std::string& sql,
                          const std::vector<Param>& params) {
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const Param& p : params) values.push_back(p ? p->c_str() : nullptr);
  // Without parameters, PQexec: it also runs several statements (a
  // migration) in one call.
  PGresult* r = params.empty()
                    ? PQexec(H(handle_), sql.c_str())
                    : PQexecParams(H(handle_), sql.c_str(),
                                   static_cast<int>(params.size()), nullptr,
                                   values.data(), nullptr, nullptr, 0);
  std::unique_ptr<PGresult, void (*)(PGresult*)> guard(r, PQclear);
  ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
    if (broken()) {
      return Unavailable("PostgreSQL connection lost: " +
                         Trim(PQerrorMessage(H(handle_))));
    }
    const char* state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
    std::string msg = "PostgreSQL: " + Trim(r ? PQresultErrorMessage(r)
                                              : PQerrorMessage(H(handle_)));
    if (state &&
        (!std::strcmp(state, "40001") || !std::strcmp(state, "40P01"))) {
      return Unavailable(msg);
    }
    return IOError(msg);
  }
  Rows out;
  int n = PQntuples(r), cols = PQnfields(r);
  out.rows.resize(n);
  for (int i = 0; i < n; ++i) {
    out.rows[i].reserve(cols);
    for (int c = 0; c < cols; ++c) {
      if (PQgetisnull(r, i, c)) {
        out.rows[i].emplace_back(std::nullopt);
      } else {
        out.rows[i].emplace_back(
            std::string(PQgetvalue(r, i, c), PQgetlength(r, i, c)));
      }
    }
  }
  const char* affected = PQcmdTuples(r);
  if (affected && *affected)
    out.affected = std::strtoull(affected, nullptr, 10);
  return out;
}

Result<std::unique_ptr<PgPool>> PgPool::Open(const std::string& url) {
  std::unique_ptr<PgPool> pool(new PgPool(url, Display(url)));
  SV_ASSIGN_OR_RETURN(auto conn, pool->Connect());
  pool->Release(std::move(conn));
  return pool;
}

PgPool::~PgPool() = default;

Result<std::unique_ptr<PgConn>> PgPool::Connect() {
  PGconn* c = PQconnectdb(url_.c_str());
  if (c == nullptr) return IOError("PostgreSQL: out of memory");
  std::unique_ptr<PgConn> conn(new PgConn(c));
  if (PQstatus(c) != CONNECTION_OK) {
    std::string msg = Trim(PQerrorMessage(c));
    // libpq's messages may quote the connection string's host, never its
    // password; still, name the URL as displayed.
    bool auth = msg.find("authentication") != std::string::npos ||
                msg.find("password") != std::string::npos;
    std::string what = "connect to " + display_ + ": " + msg;
    return auth ? PermissionDenied(what) : Unavailable(what);
  }
  // Quiet NOTICEs (CREATE ... IF NOT EXISTS) instead of stderr noise.
  PQsetNoticeProcessor(
      c, [](void*, const char*) {}, nullptr);
  return conn;
}

Result<std::unique_ptr<PgConn>> PgPool::Acquire() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    while (!idle_.empty()) {
      auto c = std::move(idle_.back());
      idle_.pop_back();
      if (!c->broken()) return c;
    }
  }
  return Connect();
}

void PgPool::Release(std::unique_ptr<PgConn> conn) {
  if (conn == nullptr || conn->broken()) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (idle_.size() < 32) idle_.push_back(std::move(conn));
}

Status PgPool::InTxn(const std::function<Status(PgConn&)>& fn,
                     int retry_for_ms) {
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(retry_for_ms);
  auto backoff = std::chrono::milliseconds(20);
  for (;;) {
    Status s;
    auto conn = Acquire();
    if (!conn) {
      s = conn.error();
    } else {
      PgConn& c = **conn;
      s = c.Exec("BEGIN").status();
      if (s.ok()) s = fn(c);
      if (s.ok()) s = c.Exec("COMMIT").status();
      if (!s.ok() && !c.broken()) (void)c.Exec("ROLLBACK");
      Release(std::move(*conn));
    }
    if (s.code() != StatusCode::kUnavailable ||
        std::chrono::steady_clock::now() + backoff > deadline) {
      return s;
    }
    std::this_thread::sleep_for(backoff);
    backoff = std::min(backoff * 2, std::chrono::milliseconds(1000));
  }
}

Result<Rows> PgPool::Query(const std::string& sql,
                           const std::vector<Param>& params) {
  Rows out;
  SV_RETURN_IF_ERROR(InTxn([&](PgConn& c) -> Status {
    SV_ASSIGN_OR_RETURN(out, c.Exec(sql, params));
    return Status::Ok();
  }));
  return out;
}

}  // namespace sealvol::pg
