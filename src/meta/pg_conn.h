// Internal to meta/: libpq behind a small interface for PgMetaStore. A
// pool of connections (one per call in flight), statements with text
// parameters, transactions that retry on serialization failures and
// deadlocks, and reconnection after a broken connection. libpq's types do
// not leave this file and pg_conn.cc.
//
// Thread safety: PgPool is safe for concurrent use; a PgConn belongs to the
// one thread that acquired it.
#ifndef SEALVOL_META_PG_CONN_H_
#define SEALVOL_META_PG_CONN_H_

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"

namespace sealvol::pg {

// One answer: rows of text values (nullopt for NULL).
struct Rows {
  std::vector<std::vector<std::optional<std::string>>> rows;
  uint64_t affected = 0;  // rows an INSERT/UPDATE/DELETE touched
  bool empty() const { return rows.empty(); }
};

using Param = std::optional<std::string>;  // nullopt: SQL NULL

class PgConn {
 public:
  ~PgConn();
  // Runs one statement ($1, $2, ... take `params`). IOError naming the
  // server's message (never the connection string); Unavailable when the
  // connection broke or the server chose this transaction to fail a
  // serialization conflict or a deadlock (both worth retrying).
  Result<Rows> Exec(const std::string& sql,
                    const std::vector<Param>& params = {});
  bool broken() const;

 private:
  friend class PgPool;
  explicit PgConn(void* handle) : handle_(handle) {}
  void* handle_;  // PGconn*
};

class PgPool {
 public:
  // Connects once to check `url` (postgres://user:pass@host:port/db or a
  // libpq "key=value" string). Messages never contain the password.
  static Result<std::unique_ptr<PgPool>> Open(const std::string& url);
  ~PgPool();

  // A connection for the caller alone; give it back with Release.
  Result<std::unique_ptr<PgConn>> Acquire();
  void Release(std::unique_ptr<PgConn> conn);

  // Runs `fn` in a transaction on a pooled connection and commits; rolls
  // back when `fn` fails. Retried (from the start, on a fresh attempt) on
  // serialization failures, deadlocks and broken connections, for up to
  // `retry_for_ms`; `fn` must be safe to run again.
  Status InTxn(const std::function<Status(PgConn&)>& fn,
               int retry_for_ms = 30000);
  // One statement outside a transaction, with the same retries.
  Result<Rows> Query(const std::string& sql,
                     const std::vector<Param>& params = {});

  // "postgres://user@host:port/db": the URL without its password.
  const std::string& display() const { return display_; }

 private:
  PgPool(std::string url, std::string display)
      : url_(std::move(url)), display_(std::move(display)) {}
  Result<std::unique_ptr<PgConn>> Connect();

  std::string url_;
  std::string display_;
  std::mutex mu_;
  std::vector<std::unique_ptr<PgConn>> idle_;
};

}  // namespace sealvol::pg

#endif  // SEALVOL_META_PG_CONN_H_
