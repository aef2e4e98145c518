#include "meta/sqlite_meta_store.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <thread>

#include "meta/sqlite_util.h"

namespace sealvol {
namespace {

using sqlite_util::Exec;
using sqlite_util::InWriteTxn;
using sqlite_util::Now;
using sqlite_util::Stmt;

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS volumes (
  name    TEXT PRIMARY KEY,
  created INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS versions (
  id          INTEGER PRIMARY KEY,
  volume      TEXT NOT NULL REFERENCES volumes(name),
  digest      TEXT NOT NULL,
  created     INTEGER NOT NULL,
  files       INTEGER NOT NULL,
  bytes       INTEGER NOT NULL,
  annotations TEXT NOT NULL,
  UNIQUE (volume, digest));
CREATE TABLE IF NOT EXISTS tags (
  volume  TEXT NOT NULL,
  tag     TEXT NOT NULL,
  digest  TEXT NOT NULL,
  updated INTEGER NOT NULL,
  PRIMARY KEY (volume, tag));
CREATE TABLE IF NOT EXISTS tag_history (
  id     INTEGER PRIMARY KEY,
  volume TEXT NOT NULL,
  tag    TEXT NOT NULL,
  from_digest TEXT,
  to_digest   TEXT,
  at     INTEGER NOT NULL,
  actor  TEXT NOT NULL,
  note   TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS tag_history_by_tag ON tag_history (volume, tag, id);
CREATE TABLE IF NOT EXISTS pins (
  deployment TEXT NOT NULL,
  path       TEXT NOT NULL,
  volume     TEXT NOT NULL,
  digest     TEXT NOT NULL,
  updated    INTEGER NOT NULL,
  PRIMARY KEY (deployment, path));
CREATE INDEX IF NOT EXISTS pins_by_volume ON pins (volume);
CREATE TABLE IF NOT EXISTS pin_history (
  id          INTEGER PRIMARY KEY,
  deployment  TEXT NOT NULL,
  path        TEXT NOT NULL,
  volume      TEXT NOT NULL,
  from_digest TEXT,
  to_digest   TEXT NOT NULL,
  at          INTEGER NOT NULL,
  actor       TEXT NOT NULL,
  reason      TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS pin_history_by_deployment
  ON pin_history (deployment, id);
CREATE TABLE IF NOT EXISTS blob_links (
  namespace TEXT NOT NULL,
  digest    TEXT NOT NULL,
  PRIMARY KEY (namespace, digest)) WITHOUT ROWID;
)sql";

Result<VersionRecord> VersionFromRow(Stmt& q) {
  VersionRecord v;
  v.volume = q.Text(0);
  SV_ASSIGN_OR_RETURN(v.digest, q.DigestAt(1));
  v.created = q.Int(2);
  v.files = static_cast<uint64_t>(q.Int(3));
  v.bytes = static_cast<uint64_t>(q.Int(4));
  v.annotations = q.Text(5);
  return v;
}

}  // namespace

SqliteMetaStore::SqliteMetaStore(std::unique_ptr<Db> db, std::string path)
    : db_(std::move(db)), path_(std::move(path)) {}
SqliteMetaStore::~SqliteMetaStore() = default;

Result<std::unique_ptr<SqliteMetaStore>> SqliteMetaStore::Open(
    const std::string& path) {
  auto db = std::make_unique<Db>();
  int rc = sqlite3_open_v2(
      path.c_str(), &db->handle,
      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
      nullptr);
  if (rc != SQLITE_OK) {
    return IOError("open metadata database " + path + ": " +
                   (db->handle ? sqlite3_errmsg(db->handle) : "out of memory"));
  }
  // Other processes may hold the write lock while they commit a version;
  // wait for them rather than failing.
  sqlite3_busy_timeout(db->handle, 60000);
  // Switching a new database to WAL takes an exclusive lock for which
  // SQLite does not call the busy handler, so several processes opening a
  // fresh store at once retry here.
  Status s;
  for (int attempt = 0; attempt < 600; ++attempt) {
    s = Exec(db->handle, "PRAGMA journal_mode=WAL");
    if (s.ok()) s = Exec(db->handle, "PRAGMA synchronous=FULL");
    if (s.ok()) s = Exec(db->handle, "PRAGMA foreign_keys=ON");
    if (s.ok()) {
      s = InWriteTxn(db->handle, [&] { return Exec(db->handle, kSchema); });
    }
    int code = sqlite3_errcode(db->handle);
    if (s.ok() || (code != SQLITE_BUSY && code != SQLITE_LOCKED)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  SV_RETURN_IF_ERROR(s);
  return std::unique_ptr<SqliteMetaStore>(
      new SqliteMetaStore(std::move(db), path));
}

Status SqliteMetaStore::AddVersion(const VersionRecord& v) {
  std::lock_guard<std::mutex> lock(mu_);
  sqlite3* db = db_->handle;
  return InWriteTxn(db, [&]() -> Status {
    Stmt vol(db, "INSERT OR IGNORE INTO volumes(name, created) VALUES(?, ?)");
    SV_RETURN_IF_ERROR(vol.Prepared());
    vol.Bind(1, v.volume);
    vol.Bind(2, v.created ? v.created : Now());
    SV_RETURN_IF_ERROR(vol.Step().status());
    Stmt ins(db,
             "INSERT OR IGNORE INTO versions(volume, digest, created, files, "
             "bytes, annotations) VALUES(?, ?, ?, ?, ?, ?)");
    SV_RETURN_IF_ERROR(ins.Prepared());
    ins.Bind(1, v.volume);
    ins.Bind(2, v.digest.ToString());
    ins.Bind(3, v.created ? v.created : Now());
    ins.Bind(4, static_cast<int64_t>(v.files));
    ins.Bind(5, static_cast<int64_t>(v.bytes));
    ins.Bind(6, v.annotations.empty() ? std::string("{}") : v.annotations);
    return ins.Step().status();
  });
}

Result<VersionRecord> SqliteMetaStore::GetVersion(const std::string& volume,
                                                  const Digest& digest) {
  std::lock_guard<std::mutex> lock(mu_);
  Stmt q(db_->handle,
         "SELECT volume, digest, created, files, bytes, annotations "
         "FROM versions WHERE volume = ? AND digest = ?");
  SV_RETURN_IF_ERROR(q.Prepared());
  q.Bind(1, volume);
  q.Bind(2, digest.ToString());
  SV_ASSIGN_OR_RETURN(bool row, q.Step());
  if (!row) {
    return NotFound("volume '" + volume + "' has no version " +
                    digest.ToString());
  }
  return VersionFromRow(q);
}

Result<std::vector<VersionRecord>> SqliteMetaStore::ListVersions(
    const std::string& volume) {
  std::lock_guard<std::mutex> lock(mu_);
  Stmt exists(db_->handle, "SELECT 1 FROM volumes WHERE name = ?");
  SV_RETURN_IF_ERROR(exists.Prepared());
  exists.Bind(1, volume);
  SV_ASSIGN_OR_RETURN(bool found, exists.Step());
  if (!found) return NotFound("no volume named '" + volume + "'");
  Stmt q(db_->handle,
         "SELECT volume, digest, created, files, bytes, annotations "
         "FROM versions WHERE volume = ? ORDER BY id");
  SV_RETURN_IF_ERROR(q.Prepared());
  q.Bind(1, volume);
  std::vector<VersionRecord> out;
  for (;;) {
    SV_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    SV_ASSIGN_OR_RETURN(VersionRecord v, VersionFromRow(q));
    out.push_back(std::move(v));
  }
  return out;
}

Result<std::vector<std::string>> SqliteMetaStore::ListVolumes() {
  std::lock_guard<std::mutex> lock(mu_);
  Stmt q(db_->handle, "SELECT name FROM volumes ORDER BY name");
  SV_RETURN_IF_ERROR(q.Prepared());
  std::vector<std::string> out;
  for (;;) {
    SV_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    out.push_back(q.Text(0));
  }
  return out;
}

Result<Digest> SqliteMetaStore::GetTag(const std::string& volume,
                                       const std::string& tag) {
  std::lock_guard<std::mutex> lock(mu_);
  Stmt q(db_->handle, "SELECT digest FROM tags WHERE volume = ? AND tag = ?");
  SV_RETURN_IF_ERROR(q.Prepared());
  q.Bind(1, volume);
  q.Bind(2, tag);
  SV_ASSIGN_OR_RETURN(bool row, q.Step());
  if (!row) return NotFound("no tag '" + volume + ":" + tag + "'");
  return q.DigestAt(0);
}

Result<std::vector<TagRecord>> SqliteMetaStore::ListTags(
    const std::string& volume) {
  std::lock_guard<std::mutex> lock(mu_);
  Stmt q(db_->handle,
         "SELECT tag, digest, updated FROM tags WHERE volume = ? ORDER BY tag");
  SV_RETURN_IF_ERROR(q.Prepared());
  q.Bind(1, volume);
  std::vector<TagRecord> out;
  for (;;) {
    SV_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    TagRecord t;
    t.tag = q.Text(0);
    SV_ASSIGN_OR_RETURN(t.digest, q.DigestAt(1));
    t.updated = q.Int(2);
    out.push_back(std::move(t));
  }
  return out;
}

Status SqliteMetaStore::MoveTag(const std::string& volume,
                                const std::string& tag,
                                const std::optional<Digest>& to,
                                const TagExpect& expect,
                                const std::string& actor,
                                const std::string& note) {
  std::lock_guard<std::mutex> lock(mu_);
  sqlite3* db = db_->handle;
  return InWriteTxn(db, [&]() -> Status {
    Stmt cur(db, "SELECT digest FROM tags WHERE volume = ? AND tag = ?");
    SV_RETURN_IF_ERROR(cur.Prepared());
    cur.Bind(1, volume);
    cur.Bind(2, tag);
    SV_ASSIGN_OR_RETURN(bool has_row, cur.Step());
    std::optional<Digest> from;
    if (has_row) {
      SV_ASSIGN_OR_RETURN(Digest d, cur.DigestAt(0));
      from = d;
    }
    SV_ASSIGN_OR_RETURN(bool changes,
                        CheckTagMove(volume + ":" + tag, from, to, expect));
    if (!changes) return Status::Ok();
    if (to) {
      Stmt v(db, "SELECT 1 FROM versions WHERE volume = ? AND digest = ?");
      SV_RETURN_IF_ERROR(v.Prepared());
      v.Bind(1, volume);
      v.Bind(2, to->ToString());
      SV_ASSIGN_OR_RETURN(bool exists, v.Step());
      if (!exists) {
        return NotFound("volume '" + volume + "' has no version " +
                        to->ToString());
      }
      Stmt up(db,
              "INSERT INTO tags(volume, tag, digest, updated) VALUES(?,?,?,?) "
              "ON CONFLICT(volume, tag) DO UPDATE SET digest = excluded.digest,"
              " updated = excluded.updated");
      SV_RETURN_IF_ERROR(up.Prepared());
      up.Bind(1, volume);
      up.Bind(2, tag);
      up.Bind(3, to->ToString());
      up.Bind(4, Now());
      SV_RETURN_IF_ERROR(up.Step().status());
    } else {
      Stmt del(db, "DELETE FROM tags WHERE volume = ? AND tag = ?");
      SV_RETURN_IF_ERROR(del.Prepared());
      del.Bind(1, volume);
      del.Bind(2, tag);
      SV_RETURN_IF_ERROR(del.Step().status());
    }
    Stmt h(db,
           "INSERT INTO tag_history(volume, tag, from_digest, to_digest, at, "
           "actor, note) VALUES(?,?,?,?,?,?,?)");
    SV_RETURN_IF_ERROR(h.Prepared());
    h.Bind(1, volume);
    h.Bind(2, tag);
    h.Bind(3, from);
    h.Bind(4, to);
    h.Bind(5, Now());
    h.Bind(6, actor);
    h.Bind(7, note);
    return h.Step().status();
  });
}

Result<std::vector<TagMove>> SqliteMetaStore::TagHistory(
    const std::string& volume, const std::string& tag) {
  std::lock_guard<std::mutex> lock(mu_);
  Stmt q(db_->handle,
         "SELECT from_digest, to_digest, at, actor, note FROM tag_history "
         "WHERE volume = ? AND tag = ? ORDER BY id");
  SV_RETURN_IF_ERROR(q.Prepared());
  q.Bind(1, volume);
  q.Bind(2, tag);
  std::vector<TagMove> out;
  for (;;) {
    SV_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    TagMove m;
    SV_ASSIGN_OR_RETURN(m.from, q.OptDigestAt(0));
    SV_ASSIGN_OR_RETURN(m.to, q.OptDigestAt(1));
    m.at = q.Int(2);
    m.actor = q.Text(3);
    m.note = q.Text(4);
    out.push_back(std::move(m));
  }
  if (out.empty())
    return NotFound("tag '" + volume + ":" + tag + "' has no history");
  return out;
}

Result<std::vector<Digest>> SqliteMetaStore::AllVersionDigests() {
  std::lock_guard<std::mutex> lock(mu_);
  Stmt q(db_->handle, "SELECT DISTINCT digest FROM versions");
  SV_RETURN_IF_ERROR(q.Prepared());
  std::vector<Digest> out;
  for (;;) {
    SV_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    SV_ASSIGN_OR_RETURN(Digest d, q.DigestAt(0));
    out.push_back(d);
  }
  return out;
}

Status SqliteMetaStore::LinkBlobs(const std::string& ns,
                                  const std::vector<Digest>& digests) {
  if (digests.empty()) return Status::Ok();
  std::lock_guard<std::mutex> lock(mu_);
  sqlite3* db = db_->handle;
  return InWriteTxn(db, [&]() -> Status {
    Stmt ins(db,
             "INSERT OR IGNORE INTO blob_links(namespace, digest) "
             "VALUES(?, ?)");
    SV_RETURN_IF_ERROR(ins.Prepared());
    for (const Digest& d : digests) {
      ins.Bind(1, ns);
      ins.Bind(2, d.ToString());
      SV_RETURN_IF_ERROR(ins.Step().status());
      ins.Reset();
    }
    return Status::Ok();
  });
}

Result<std::vector<Digest>> SqliteMetaStore::UnlinkedBlobs(
    const std::string& ns, const std::vector<Digest>& digests) {
  std::lock_guard<std::mutex> lock(mu_);
  Stmt q(db_->handle,
         "SELECT 1 FROM blob_links WHERE namespace = ? AND digest = ?");
  SV_RETURN_IF_ERROR(q.Prepared());
  std::vector<Digest> out;
  for (const Digest& d : digests) {
    q.Bind(1, ns);
    q.Bind(2, d.ToString());
    SV_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) out.push_back(d);
    q.Reset();
  }
  return out;
}

namespace {

// Released by closing the lock file (or clearing the in-process flag).
class SqliteGcLease : public GcLease {
 public:
  SqliteGcLease(int fd, std::shared_ptr<std::atomic<bool>> flag)
      : fd_(fd), flag_(std::move(flag)) {}
  ~SqliteGcLease() override {
    if (fd_ >= 0) ::close(fd_);
    *flag_ = false;
  }

 private:
  int fd_;
  std::shared_ptr<std::atomic<bool>> flag_;
};

}  // namespace

Result<std::unique_ptr<GcLease>> SqliteMetaStore::LockGc() {
  auto busy = [] {
    return FailedPrecondition(
        "another gc is running on this store; try again when it ends");
  };
  if (gc_running_->exchange(true)) return busy();
  int fd = -1;
  if (path_ != ":memory:") {
    std::string lock = path_ + ".gc-lock";
    fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
      *gc_running_ = false;
      return ErrnoStatus(errno, "open " + lock);
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd);
      *gc_running_ = false;
      return busy();
    }
  }
  return std::unique_ptr<GcLease>(new SqliteGcLease(fd, gc_running_));
}

}  // namespace sealvol
