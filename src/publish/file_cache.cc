#include "publish/file_cache.h"

#include <sqlite3.h>

#include <chrono>
#include <thread>

namespace sealvol {

struct FileCache::Db {
  sqlite3* handle = nullptr;
  sqlite3_stmt* lookup = nullptr;
  ~Db() {
    sqlite3_finalize(lookup);
    sqlite3_close_v2(handle);
  }
};

FileCache::FileCache(std::unique_ptr<Db> db) : db_(std::move(db)) {}
FileCache::~FileCache() = default;

Result<std::unique_ptr<FileCache>> FileCache::Open(const std::string& path) {
  auto db = std::make_unique<Db>();
  if (sqlite3_open_v2(
          path.c_str(), &db->handle,
          SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
          nullptr) != SQLITE_OK) {
    return IOError("open file cache " + path);
  }
  sqlite3_busy_timeout(db->handle, 60000);
  const char* schema =
      "PRAGMA journal_mode=WAL;"
      "CREATE TABLE IF NOT EXISTS files ("
      "  path TEXT PRIMARY KEY, dev INTEGER, ino INTEGER, size INTEGER,"
      "  mtime INTEGER, ctime INTEGER, sha256 TEXT NOT NULL, chunks TEXT)";
  // A fresh database's switch to WAL does not wait on the busy handler;
  // publishers opening it at the same moment retry.
  int rc = SQLITE_BUSY;
  for (int attempt = 0; attempt < 600 && rc != SQLITE_OK; ++attempt) {
    rc = sqlite3_exec(db->handle, schema, nullptr, nullptr, nullptr);
    if (rc != SQLITE_BUSY && rc != SQLITE_LOCKED) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (rc != SQLITE_OK ||
      sqlite3_prepare_v2(db->handle,
                         "SELECT dev, ino, size, mtime, ctime, sha256, chunks "
                         "FROM files WHERE path = ?",
                         -1, &db->lookup, nullptr) != SQLITE_OK) {
    return IOError("file cache " + path + ": " + sqlite3_errmsg(db->handle));
  }
  return std::unique_ptr<FileCache>(new FileCache(std::move(db)));
}

std::optional<CachedFile> FileCache::Lookup(const SourceFile& f) {
  sqlite3_stmt* q = db_->lookup;
  sqlite3_reset(q);
  sqlite3_bind_text(q, 1, f.abs_path.c_str(), -1, SQLITE_TRANSIENT);
  if (sqlite3_step(q) != SQLITE_ROW) return std::nullopt;
  if (sqlite3_column_int64(q, 0) != static_cast<int64_t>(f.dev) ||
      sqlite3_column_int64(q, 1) != static_cast<int64_t>(f.ino) ||
      sqlite3_column_int64(q, 2) != static_cast<int64_t>(f.size) ||
      sqlite3_column_int64(q, 3) != f.mtime_ns ||
      sqlite3_column_int64(q, 4) != f.ctime_ns) {
    return std::nullopt;
  }
  auto text = [&](int col) {
    auto p = sqlite3_column_text(q, col);
    return std::string(p ? reinterpret_cast<const char*>(p) : "");
  };
  auto sha = Digest::Parse(text(5));
  if (!sha) return std::nullopt;
  CachedFile c{*sha, std::nullopt};
  if (sqlite3_column_type(q, 6) != SQLITE_NULL) {
    auto idx = Digest::Parse(text(6));
    if (!idx) return std::nullopt;
    c.chunks = *idx;
  }
  return c;
}

void FileCache::Record(const SourceFile& f, const CachedFile& c,
                       int64_t read_at_ns) {
  if (read_at_ns - f.mtime_ns < kRacyWindowNs ||
      read_at_ns - f.ctime_ns < kRacyWindowNs) {
    return;  // could change again within the same timestamp tick
  }
  pending_.push_back({f, c});
}

Status FileCache::Flush() {
  if (pending_.empty()) return Status::Ok();
  sqlite3* db = db_->handle;
  sqlite3_stmt* ins = nullptr;
  if (sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) !=
          SQLITE_OK ||
      sqlite3_prepare_v2(
          db, "INSERT OR REPLACE INTO files VALUES (?,?,?,?,?,?,?,?)", -1, &ins,
          nullptr) != SQLITE_OK) {
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    return IOError(std::string("file cache: ") + sqlite3_errmsg(db));
  }
  for (const auto& p : pending_) {
    sqlite3_reset(ins);
    sqlite3_bind_text(ins, 1, p.file.abs_path.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(ins, 2, static_cast<int64_t>(p.file.dev));
    sqlite3_bind_int64(ins, 3, static_cast<int64_t>(p.file.ino));
    sqlite3_bind_int64(ins, 4, static_cast<int64_t>(p.file.size));
    sqlite3_bind_int64(ins, 5, p.file.mtime_ns);
    sqlite3_bind_int64(ins, 6, p.file.ctime_ns);
    std::string sha = p.result.sha256.ToString();
    sqlite3_bind_text(ins, 7, sha.c_str(), -1, SQLITE_TRANSIENT);
    if (p.result.chunks) {
      std::string idx = p.result.chunks->ToString();
      sqlite3_bind_text(ins, 8, idx.c_str(), -1, SQLITE_TRANSIENT);
    } else {
      sqlite3_bind_null(ins, 8);
    }
    sqlite3_step(ins);
  }
  sqlite3_finalize(ins);
  pending_.clear();
  if (sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) {
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    return IOError(std::string("file cache: ") + sqlite3_errmsg(db));
  }
  return Status::Ok();
}

}  // namespace sealvol
