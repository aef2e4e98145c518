// PgMetaStore's writes that must stay right with many replicas (tag
// compare-and-swap, pins) and its namespace links, kept apart for size.
#include <set>

#include "meta/pg_conn.h"
#include "meta/pg_meta_store.h"
#include "meta/pg_util.h"

namespace sealvol {

using pg::PgConn;
using pg_util::DigestAt;
using pg_util::Int;
using pg_util::Now;
using pg_util::OptDigestAt;
using pg_util::OptText;
using pg_util::Text;
using pg_util::TextArray;

namespace {

Status RequireVersion(PgConn& c, const std::string& volume,
                      const Digest& digest) {
  SV_ASSIGN_OR_RETURN(pg::Rows v,
                      c.Exec("SELECT 1 FROM versions WHERE volume = $1 AND "
                             "digest = $2",
                             {volume, digest.ToString()}));
  if (v.empty()) {
    return NotFound("volume '" + volume + "' has no version " +
                    digest.ToString());
  }
  return Status::Ok();
}

Result<std::vector<PinRecord>> PinRows(const pg::Rows& r) {
  std::vector<PinRecord> out;
  for (size_t i = 0; i < r.rows.size(); ++i) {
    PinRecord p;
    p.deployment = Text(r, i, 0);
    p.path = Text(r, i, 1);
    p.volume = Text(r, i, 2);
    SV_ASSIGN_OR_RETURN(p.digest, DigestAt(r, i, 3));
    p.updated = Int(r, i, 4);
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

Status PgMetaStore::MoveTag(const std::string& volume, const std::string& tag,
                            const std::optional<Digest>& to,
                            const TagExpect& expect, const std::string& actor,
                            const std::string& note) {
  std::string name = volume + ":" + tag;
  return pool_->InTxn([&](PgConn& c) -> Status {
    // Moves of one tag queue here until the holder commits, so the value
    // read below is the latest and the compare-and-swap is exact. A row
    // lock would not do: an absent tag has no row to lock.
    SV_RETURN_IF_ERROR(
        c.Exec("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))",
               {"tag " + name})
            .status());
    SV_ASSIGN_OR_RETURN(
        pg::Rows cur,
        c.Exec("SELECT digest FROM tags WHERE volume = $1 AND tag = $2",
               {volume, tag}));
    std::optional<Digest> from;
    if (!cur.empty()) {
      SV_ASSIGN_OR_RETURN(Digest d, DigestAt(cur, 0, 0));
      from = d;
    }
    SV_ASSIGN_OR_RETURN(bool changes, CheckTagMove(name, from, to, expect));
    if (!changes) return Status::Ok();
    if (to) {
      SV_RETURN_IF_ERROR(RequireVersion(c, volume, *to));
      SV_RETURN_IF_ERROR(
          c.Exec("INSERT INTO tags(volume, tag, digest, updated) "
                 "VALUES($1, $2, $3, $4) ON CONFLICT (volume, tag) DO UPDATE "
                 "SET digest = excluded.digest, updated = excluded.updated",
                 {volume, tag, to->ToString(), Now()})
              .status());
    } else {
      SV_RETURN_IF_ERROR(
          c.Exec("DELETE FROM tags WHERE volume = $1 AND tag = $2",
                 {volume, tag})
              .status());
    }
    return c
        .Exec(
            "INSERT INTO tag_history(volume, tag, from_digest, to_digest, at, "
            "actor, note) VALUES($1, $2, $3, $4, $5, $6, $7)",
            {volume, tag, OptText(from), OptText(to), Now(), actor, note})
        .status();
  });
}

Result<std::vector<TagMove>> PgMetaStore::TagHistory(const std::string& volume,
                                                     const std::string& tag) {
  SV_ASSIGN_OR_RETURN(
      pg::Rows r,
      pool_->Query("SELECT from_digest, to_digest, at, actor, note FROM "
                   "tag_history WHERE volume = $1 AND tag = $2 ORDER BY id",
                   {volume, tag}));
  std::vector<TagMove> out;
  for (size_t i = 0; i < r.rows.size(); ++i) {
    TagMove m;
    SV_ASSIGN_OR_RETURN(m.from, OptDigestAt(r, i, 0));
    SV_ASSIGN_OR_RETURN(m.to, OptDigestAt(r, i, 1));
    m.at = Int(r, i, 2);
    m.actor = Text(r, i, 3);
    m.note = Text(r, i, 4);
    out.push_back(std::move(m));
  }
  if (out.empty()) {
    return NotFound("tag '" + volume + ":" + tag + "' has no history");
  }
  return out;
}

Status PgMetaStore::SetPin(const std::string& deployment,
                           const std::string& path, const std::string& volume,
                           const Digest& digest, const std::string& actor,
                           const std::string& reason) {
  return pool_->InTxn([&](PgConn& c) -> Status {
    SV_RETURN_IF_ERROR(
        c.Exec("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))",
               {"pin " + deployment + "\n" + path})
            .status());
    SV_RETURN_IF_ERROR(RequireVersion(c, volume, digest));
    SV_ASSIGN_OR_RETURN(pg::Rows cur,
                        c.Exec("SELECT volume, digest FROM pins WHERE "
                               "deployment = $1 AND path = $2",
                               {deployment, path}));
    std::optional<Digest> from;
    if (!cur.empty()) {
      SV_ASSIGN_OR_RETURN(Digest d, DigestAt(cur, 0, 1));
      if (Text(cur, 0, 0) == volume && d == digest) return Status::Ok();
      from = d;
    }
    SV_RETURN_IF_ERROR(
        c.Exec("INSERT INTO pins(deployment, path, volume, digest, updated) "
               "VALUES($1, $2, $3, $4, $5) ON CONFLICT (deployment, path) DO "
               "UPDATE SET volume = excluded.volume, digest = excluded.digest, "
               "updated = excluded.updated",
               {deployment, path, volume, digest.ToString(), Now()})
            .status());
    return c
        .Exec(
            "INSERT INTO pin_history(deployment, path, volume, from_digest, "
            "to_digest, at, actor, reason) VALUES($1, $2, $3, $4, $5, $6, $7, "
            "$8)",
            {deployment, path, volume, OptText(from), digest.ToString(), Now(),
             actor, reason})
        .status();
  });
}

Result<std::vector<PinRecord>> PgMetaStore::ListPins(
    const std::string& deployment) {
  SV_ASSIGN_OR_RETURN(
      pg::Rows r,
      pool_->Query("SELECT deployment, path, volume, digest, updated FROM "
                   "pins WHERE deployment = $1 ORDER BY path COLLATE \"C\"",
                   {deployment}));
  return PinRows(r);
}

Result<std::vector<PinRecord>> PgMetaStore::PinsOfVolume(
    const std::string& volume) {
  SV_ASSIGN_OR_RETURN(
      pg::Rows r,
      pool_->Query("SELECT deployment, path, volume, digest, updated FROM "
                   "pins WHERE volume = $1 ORDER BY deployment COLLATE \"C\", "
                   "path COLLATE \"C\"",
                   {volume}));
  return PinRows(r);
}

Result<std::vector<PinMove>> PgMetaStore::PinHistory(
    const std::string& deployment) {
  SV_ASSIGN_OR_RETURN(
      pg::Rows r,
      pool_->Query("SELECT path, volume, from_digest, to_digest, at, actor, "
                   "reason FROM pin_history WHERE deployment = $1 ORDER BY id",
                   {deployment}));
  std::vector<PinMove> out;
  for (size_t i = 0; i < r.rows.size(); ++i) {
    PinMove m;
    m.path = Text(r, i, 0);
    m.volume = Text(r, i, 1);
    SV_ASSIGN_OR_RETURN(m.from, OptDigestAt(r, i, 2));
    SV_ASSIGN_OR_RETURN(m.to, DigestAt(r, i, 3));
    m.at = Int(r, i, 4);
    m.actor = Text(r, i, 5);
    m.reason = Text(r, i, 6);
    out.push_back(std::move(m));
  }
  return out;
}

Status PgMetaStore::LinkBlobs(const std::string& ns,
                              const std::vector<Digest>& digests) {
  if (digests.empty()) return Status::Ok();
  // One statement per call: the digests go as one array parameter.
  return pool_
      ->Query(
          "INSERT INTO blob_links(namespace, digest) SELECT $1, d FROM "
          "unnest($2::text[]) AS d ON CONFLICT DO NOTHING",
          {ns, TextArray(digests)})
      .status();
}

Result<std::vector<Digest>> PgMetaStore::UnlinkedBlobs(
    const std::string& ns, const std::vector<Digest>& digests) {
  if (digests.empty()) return std::vector<Digest>();
  SV_ASSIGN_OR_RETURN(
      pg::Rows r,
      pool_->Query("SELECT digest FROM blob_links WHERE namespace = $1 AND "
                   "digest = ANY($2::text[])",
                   {ns, TextArray(digests)}));
  std::set<std::string> linked;
  for (size_t i = 0; i < r.rows.size(); ++i) linked.insert(Text(r, i, 0));
  std::vector<Digest> out;
  for (const Digest& d : digests) {
    if (!linked.count(d.ToString())) out.push_back(d);
  }
  return out;
}

}  // namespace sealvol
