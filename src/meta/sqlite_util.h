// Internal to meta/: a prepared-statement wrapper and transaction helpers
// shared by the files of SqliteMetaStore. Not for use outside meta/.
//
// Thread safety: none; callers hold SqliteMetaStore's mutex.
#ifndef SEALVOL_META_SQLITE_UTIL_H_
#define SEALVOL_META_SQLITE_UTIL_H_

#include <sqlite3.h>

#include <cstdint>
#include <ctime>
#include <optional>
#include <string>

#include "base/status.h"
#include "hash/digest.h"
#include "meta/sqlite_meta_store.h"

namespace sealvol {

struct SqliteMetaStore::Db {
  sqlite3* handle = nullptr;
  ~Db() { sqlite3_close_v2(handle); }
};

namespace sqlite_util {

// A prepared statement that finalizes itself. Bind* take 1-based indexes.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) : db_(db) {
    rc_ = sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr);
  }
  ~Stmt() { sqlite3_finalize(stmt_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  Status Prepared() const {
    if (rc_ == SQLITE_OK) return Status::Ok();
    return IOError(std::string("metadata database: ") + sqlite3_errmsg(db_));
  }
  void Bind(int i, const std::string& s) {
    sqlite3_bind_text(stmt_, i, s.data(), static_cast<int>(s.size()),
                      SQLITE_TRANSIENT);
  }
  void Bind(int i, int64_t v) { sqlite3_bind_int64(stmt_, i, v); }
  void BindNull(int i) { sqlite3_bind_null(stmt_, i); }
  // Makes the statement ready to bind and step again.
  void Reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  void Bind(int i, const std::optional<Digest>& d) {
    if (d)
      Bind(i, d->ToString());
    else
      BindNull(i);
  }
  // True for a row, false when done; IOError on failure.
  Result<bool> Step() {
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    return IOError(std::string("metadata database: ") + sqlite3_errmsg(db_));
  }
  std::string Text(int col) {
    auto p = sqlite3_column_text(stmt_, col);
    return p ? reinterpret_cast<const char*>(p) : "";
  }
  bool IsNull(int col) {
    return sqlite3_column_type(stmt_, col) == SQLITE_NULL;
  }
  int64_t Int(int col) { return sqlite3_column_int64(stmt_, col); }
  Result<Digest> DigestAt(int col) {
    auto d = Digest::Parse(Text(col));
    if (!d) return Corruption("metadata database holds a bad digest");
    return d;
  }
  Result<std::optional<Digest>> OptDigestAt(int col) {
    if (IsNull(col)) return std::optional<Digest>();
    SV_ASSIGN_OR_RETURN(Digest d, DigestAt(col));
    return std::optional<Digest>(d);
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  int rc_;
};

inline Status Exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) == SQLITE_OK) {
    return Status::Ok();
  }
  std::string msg = err ? err : "unknown error";
  sqlite3_free(err);
  return IOError("metadata database: " + msg);
}

// Runs `fn` inside BEGIN IMMEDIATE ... COMMIT, rolling back on any error.
template <typename Fn>
Status InWriteTxn(sqlite3* db, Fn fn) {
  SV_RETURN_IF_ERROR(Exec(db, "BEGIN IMMEDIATE"));
  Status s = fn();
  if (s.ok()) s = Exec(db, "COMMIT");
  if (!s.ok()) (void)Exec(db, "ROLLBACK");
  return s;
}

inline int64_t Now() { return static_cast<int64_t>(::time(nullptr)); }

}  // namespace sqlite_util
}  // namespace sealvol

#endif  // SEALVOL_META_SQLITE_UTIL_H_
