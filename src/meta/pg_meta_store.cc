#include "meta/pg_meta_store.h"

#include <ctime>

#include "meta/pg_conn.h"
#include "meta/pg_util.h"

namespace sealvol {

using pg::PgConn;
using pg_util::DigestAt;
using pg_util::Int;
using pg_util::Now;
using pg_util::OptDigestAt;
using pg_util::Text;

namespace {

// Numbered migrations; the n-th entry takes the schema from n to n + 1.
// Append only: a released migration is never edited.
const char* const kMigrations[] = {
    R"sql(
CREATE TABLE volumes (
  name    TEXT PRIMARY KEY,
  created BIGINT NOT NULL);
CREATE TABLE versions (
  id          BIGSERIAL PRIMARY KEY,
  volume      TEXT NOT NULL REFERENCES volumes(name),
  digest      TEXT NOT NULL,
  created     BIGINT NOT NULL,
  files       BIGINT NOT NULL,
  bytes       BIGINT NOT NULL,
  annotations TEXT NOT NULL,
  UNIQUE (volume, digest));
CREATE TABLE tags (
  volume  TEXT NOT NULL,
  tag     TEXT NOT NULL,
  digest  TEXT NOT NULL,
  updated BIGINT NOT NULL,
  PRIMARY KEY (volume, tag));
CREATE TABLE tag_history (
  id          BIGSERIAL PRIMARY KEY,
  volume      TEXT NOT NULL,
  tag         TEXT NOT NULL,
  from_digest TEXT,
  to_digest   TEXT,
  at          BIGINT NOT NULL,
  actor       TEXT NOT NULL,
  note        TEXT NOT NULL);
CREATE INDEX tag_history_by_tag ON tag_history (volume, tag, id);
CREATE TABLE pins (
  deployment TEXT NOT NULL,
  path       TEXT NOT NULL,
  volume     TEXT NOT NULL,
  digest     TEXT NOT NULL,
  updated    BIGINT NOT NULL,
  PRIMARY KEY (deployment, path));
CREATE INDEX pins_by_volume ON pins (volume);
CREATE TABLE pin_history (
  id          BIGSERIAL PRIMARY KEY,
  deployment  TEXT NOT NULL,
  path        TEXT NOT NULL,
  volume      TEXT NOT NULL,
  from_digest TEXT,
  to_digest   TEXT NOT NULL,
  at          BIGINT NOT NULL,
  actor       TEXT NOT NULL,
  reason      TEXT NOT NULL);
CREATE INDEX pin_history_by_deployment ON pin_history (deployment, id);
CREATE TABLE blob_links (
  namespace TEXT NOT NULL,
  digest    TEXT NOT NULL,
  PRIMARY KEY (namespace, digest));
)sql",
};
constexpr int kLatest = sizeof(kMigrations) / sizeof(kMigrations[0]);

// Advisory lock keys (one 64-bit space per database): migrations and GC.
constexpr const char* kMigrateLock = "7301";
constexpr const char* kGcLock = "7302";

constexpr const char* kVersionCols =
    "volume, digest, created, files, bytes, annotations";

Result<VersionRecord> VersionFromRow(const pg::Rows& r, size_t i) {
  VersionRecord v;
  v.volume = Text(r, i, 0);
  SV_ASSIGN_OR_RETURN(v.digest, DigestAt(r, i, 1));
  v.created = Int(r, i, 2);
  v.files = static_cast<uint64_t>(Int(r, i, 3));
  v.bytes = static_cast<uint64_t>(Int(r, i, 4));
  v.annotations = Text(r, i, 5);
  return v;
}

class PgGcLease : public GcLease {
 public:
  PgGcLease(pg::PgPool* pool, std::unique_ptr<PgConn> conn)
      : pool_(pool), conn_(std::move(conn)) {}
  ~PgGcLease() override {
    (void)conn_->Exec("SELECT pg_advisory_unlock($1)", {kGcLock});
    pool_->Release(std::move(conn_));
  }

 private:
  pg::PgPool* pool_;
  std::unique_ptr<PgConn> conn_;
};

}  // namespace

PgMetaStore::PgMetaStore(std::unique_ptr<pg::PgPool> pool)
    : pool_(std::move(pool)) {}
PgMetaStore::~PgMetaStore() = default;

int PgMetaStore::LatestSchema() { return kLatest; }

const std::string& PgMetaStore::display() const { return pool_->display(); }

Result<std::unique_ptr<PgMetaStore>> PgMetaStore::Open(const std::string& url,
                                                       bool migrate) {
  SV_ASSIGN_OR_RETURN(auto pool, pg::PgPool::Open(url));
  std::unique_ptr<PgMetaStore> store(new PgMetaStore(std::move(pool)));
  SV_RETURN_IF_ERROR(store->Migrate(migrate));
  return store;
}

Result<int> PgMetaStore::SchemaVersion() {
  SV_ASSIGN_OR_RETURN(
      pg::Rows r,
      pool_->Query("SELECT COALESCE(MAX(version), 0) FROM sealvol_schema"));
  return static_cast<int>(Int(r, 0, 0));
}

Status PgMetaStore::Migrate(bool apply) {
  return pool_->InTxn([&](PgConn& c) -> Status {
    // Replicas starting together: one applies, the others wait and then
    // find nothing left to do.
    SV_RETURN_IF_ERROR(
        c.Exec("SELECT pg_advisory_xact_lock($1)", {kMigrateLock}).status());
    SV_RETURN_IF_ERROR(c.Exec("CREATE TABLE IF NOT EXISTS sealvol_schema ("
                              "version INTEGER PRIMARY KEY, "
                              "applied BIGINT NOT NULL)")
                           .status());
    SV_ASSIGN_OR_RETURN(pg::Rows r,
                        c.Exec("SELECT COALESCE(MAX(version), 0) FROM "
                               "sealvol_schema"));
    int have = static_cast<int>(Int(r, 0, 0));
    if (have > kLatest) {
      return FailedPrecondition(pool_->display() + " has schema version " +
                                std::to_string(have) +
                                ", newer than this sealvol knows (" +
                                std::to_string(kLatest) + "): upgrade sealvol");
    }
    if (have < kLatest && !apply) {
      return FailedPrecondition(pool_->display() + " has schema version " +
                                std::to_string(have) + "; this sealvol needs " +
                                std::to_string(kLatest) +
                                ": run `sealvol serve --migrate` once");
    }
    for (int v = have; v < kLatest; ++v) {
      SV_RETURN_IF_ERROR(
          c.Exec(kMigrations[v])
              .status()
              .WithContext("migration " + std::to_string(v + 1)));
      SV_RETURN_IF_ERROR(
          c.Exec("INSERT INTO sealvol_schema(version, applied) VALUES($1, $2)",
                 {std::to_string(v + 1), Now()})
              .status());
    }
    return Status::Ok();
  });
}

Status PgMetaStore::AddVersion(const VersionRecord& v) {
  std::string created = v.created ? std::to_string(v.created) : Now();
  return pool_->InTxn([&](PgConn& c) -> Status {
    SV_RETURN_IF_ERROR(c.Exec("INSERT INTO volumes(name, created) "
                              "VALUES($1, $2) ON CONFLICT DO NOTHING",
                              {v.volume, created})
                           .status());
    return c
        .Exec(
            "INSERT INTO versions(volume, digest, created, files, bytes, "
            "annotations) VALUES($1, $2, $3, $4, $5, $6) ON CONFLICT DO "
            "NOTHING",
            {v.volume, v.digest.ToString(), created, std::to_string(v.files),
             std::to_string(v.bytes),
             v.annotations.empty() ? std::string("{}") : v.annotations})
        .status();
  });
}

Result<VersionRecord> PgMetaStore::GetVersion(const std::string& volume,
                                              const Digest& digest) {
  SV_ASSIGN_OR_RETURN(pg::Rows r,
                      pool_->Query(std::string("SELECT ") + kVersionCols +
                                       " FROM versions WHERE volume = $1 AND "
                                       "digest = $2",
                                   {volume, digest.ToString()}));
  if (r.empty()) {
    return NotFound("volume '" + volume + "' has no version " +
                    digest.ToString());
  }
  return VersionFromRow(r, 0);
}

Result<std::vector<VersionRecord>> PgMetaStore::ListVersions(
    const std::string& volume) {
  pg::Rows exists, r;
  SV_RETURN_IF_ERROR(pool_->InTxn([&](PgConn& c) -> Status {
    SV_ASSIGN_OR_RETURN(
        exists, c.Exec("SELECT 1 FROM volumes WHERE name = $1", {volume}));
    SV_ASSIGN_OR_RETURN(r, c.Exec(std::string("SELECT ") + kVersionCols +
                                      " FROM versions WHERE volume = $1 "
                                      "ORDER BY id",
                                  {volume}));
    return Status::Ok();
  }));
  if (exists.empty()) return NotFound("no volume named '" + volume + "'");
  std::vector<VersionRecord> out;
  for (size_t i = 0; i < r.rows.size(); ++i) {
    SV_ASSIGN_OR_RETURN(VersionRecord v, VersionFromRow(r, i));
    out.push_back(std::move(v));
  }
  return out;
}

Result<std::vector<std::string>> PgMetaStore::ListVolumes() {
  // COLLATE "C": byte order, as SQLite sorts.
  SV_ASSIGN_OR_RETURN(
      pg::Rows r,
      pool_->Query("SELECT name FROM volumes ORDER BY name COLLATE \"C\""));
  std::vector<std::string> out;
  for (size_t i = 0; i < r.rows.size(); ++i) out.push_back(Text(r, i, 0));
  return out;
}

Result<Digest> PgMetaStore::GetTag(const std::string& volume,
                                   const std::string& tag) {
  SV_ASSIGN_OR_RETURN(
      pg::Rows r,
      pool_->Query("SELECT digest FROM tags WHERE volume = $1 AND tag = $2",
                   {volume, tag}));
  if (r.empty()) return NotFound("no tag '" + volume + ":" + tag + "'");
  return DigestAt(r, 0, 0);
}

Result<std::vector<TagRecord>> PgMetaStore::ListTags(
    const std::string& volume) {
  SV_ASSIGN_OR_RETURN(
      pg::Rows r, pool_->Query("SELECT tag, digest, updated FROM tags WHERE "
                               "volume = $1 ORDER BY tag COLLATE \"C\"",
                               {volume}));
  std::vector<TagRecord> out;
  for (size_t i = 0; i < r.rows.size(); ++i) {
    TagRecord t;
    t.tag = Text(r, i, 0);
    SV_ASSIGN_OR_RETURN(t.digest, DigestAt(r, i, 1));
    t.updated = Int(r, i, 2);
    out.push_back(std::move(t));
  }
  return out;
}

Result<std::vector<Digest>> PgMetaStore::AllVersionDigests() {
  SV_ASSIGN_OR_RETURN(pg::Rows r,
                      pool_->Query("SELECT DISTINCT digest FROM versions"));
  std::vector<Digest> out;
  for (size_t i = 0; i < r.rows.size(); ++i) {
    SV_ASSIGN_OR_RETURN(Digest d, DigestAt(r, i, 0));
    out.push_back(d);
  }
  return out;
}

Result<std::unique_ptr<GcLease>> PgMetaStore::LockGc() {
  SV_ASSIGN_OR_RETURN(auto conn, pool_->Acquire());
  SV_ASSIGN_OR_RETURN(pg::Rows r,
                      conn->Exec("SELECT pg_try_advisory_lock($1)", {kGcLock}));
  if (Text(r, 0, 0) != "t") {
    pool_->Release(std::move(conn));
    return FailedPrecondition(
        "another gc is running on " + pool_->display() +
        " (it holds the collector's advisory lock); try again when it ends");
  }
  return std::unique_ptr<GcLease>(new PgGcLease(pool_.get(), std::move(conn)));
}

}  // namespace sealvol
