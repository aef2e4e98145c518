// SqliteMetaStore's pins: deployments' records of the versions they mount
// (meta_store.h), kept apart from the rest of the store for size.
#include <mutex>

#include "meta/sqlite_meta_store.h"
#include "meta/sqlite_util.h"

namespace sealvol {
namespace {

using sqlite_util::InWriteTxn;
using sqlite_util::Now;
using sqlite_util::Stmt;

Result<std::vector<PinRecord>> PinRows(Stmt& q) {
  std::vector<PinRecord> out;
  for (;;) {
    SV_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    PinRecord p;
    p.deployment = q.Text(0);
    p.path = q.Text(1);
    p.volume = q.Text(2);
    SV_ASSIGN_OR_RETURN(p.digest, q.DigestAt(3));
    p.updated = q.Int(4);
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

Status SqliteMetaStore::SetPin(const std::string& deployment,
                               const std::string& path,
                               const std::string& volume, const Digest& digest,
                               const std::string& actor,
                               const std::string& reason) {
  std::lock_guard<std::mutex> lock(mu_);
  sqlite3* db = db_->handle;
  return InWriteTxn(db, [&]() -> Status {
    Stmt v(db, "SELECT 1 FROM versions WHERE volume = ? AND digest = ?");
    SV_RETURN_IF_ERROR(v.Prepared());
    v.Bind(1, volume);
    v.Bind(2, digest.ToString());
    SV_ASSIGN_OR_RETURN(bool exists, v.Step());
    if (!exists) {
      return NotFound("volume '" + volume + "' has no version " +
                      digest.ToString());
    }
    Stmt cur(db,
             "SELECT volume, digest FROM pins WHERE deployment = ? AND "
             "path = ?");
    SV_RETURN_IF_ERROR(cur.Prepared());
    cur.Bind(1, deployment);
    cur.Bind(2, path);
    SV_ASSIGN_OR_RETURN(bool has_row, cur.Step());
    std::optional<Digest> from;
    if (has_row) {
      SV_ASSIGN_OR_RETURN(Digest d, cur.DigestAt(1));
      if (cur.Text(0) == volume && d == digest) return Status::Ok();
      from = d;
    }
    Stmt up(db,
            "INSERT INTO pins(deployment, path, volume, digest, updated) "
            "VALUES(?,?,?,?,?) ON CONFLICT(deployment, path) DO UPDATE SET "
            "volume = excluded.volume, digest = excluded.digest, "
            "updated = excluded.updated");
    SV_RETURN_IF_ERROR(up.Prepared());
    up.Bind(1, deployment);
    up.Bind(2, path);
    up.Bind(3, volume);
    up.Bind(4, digest.ToString());
    up.Bind(5, Now());
    SV_RETURN_IF_ERROR(up.Step().status());
    Stmt h(db,
           "INSERT INTO pin_history(deployment, path, volume, from_digest, "
           "to_digest, at, actor, reason) VALUES(?,?,?,?,?,?,?,?)");
    SV_RETURN_IF_ERROR(h.Prepared());
    h.Bind(1, deployment);
    h.Bind(2, path);
    h.Bind(3, volume);
    h.Bind(4, from);
    h.Bind(5, digest.ToString());
    h.Bind(6, Now());
    h.Bind(7, actor);
    h.Bind(8, reason);
    return h.Step().status();
  });
}

Result<std::vector<PinRecord>> SqliteMetaStore::ListPins(
    const std::string& deployment) {
  std::lock_guard<std::mutex> lock(mu_);
  Stmt q(db_->handle,
         "SELECT deployment, path, volume, digest, updated FROM pins "
         "WHERE deployment = ? ORDER BY path");
  SV_RETURN_IF_ERROR(q.Prepared());
  q.Bind(1, deployment);
  return PinRows(q);
}

Result<std::vector<PinRecord>> SqliteMetaStore::PinsOfVolume(
    const std::string& volume) {
  std::lock_guard<std::mutex> lock(mu_);
  Stmt q(db_->handle,
         "SELECT deployment, path, volume, digest, updated FROM pins "
         "WHERE volume = ? ORDER BY deployment, path");
  SV_RETURN_IF_ERROR(q.Prepared());
  q.Bind(1, volume);
  return PinRows(q);
}

Result<std::vector<PinMove>> SqliteMetaStore::PinHistory(
    const std::string& deployment) {
  std::lock_guard<std::mutex> lock(mu_);
  Stmt q(db_->handle,
         "SELECT path, volume, from_digest, to_digest, at, actor, reason "
         "FROM pin_history WHERE deployment = ? ORDER BY id");
  SV_RETURN_IF_ERROR(q.Prepared());
  q.Bind(1, deployment);
  std::vector<PinMove> out;
  for (;;) {
    SV_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    PinMove m;
    m.path = q.Text(0);
    m.volume = q.Text(1);
    SV_ASSIGN_OR_RETURN(m.from, q.OptDigestAt(2));
    SV_ASSIGN_OR_RETURN(m.to, q.DigestAt(3));
    m.at = q.Int(4);
    m.actor = q.Text(5);
    m.reason = q.Text(6);
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace sealvol
