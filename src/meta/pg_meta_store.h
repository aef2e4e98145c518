// PgMetaStore: the MetaStore for a registry of several replicas, in
// PostgreSQL. Every method is one transaction on a pooled connection; a
// transaction the server fails for a conflict or a lost connection is
// retried from the start.
//
// Correct with many replicas writing at once:
//  - a tag move takes a transaction-scoped advisory lock on its
//    (volume, tag), reads the current value, compares and writes value and
//    history together, so of N concurrent moves expecting one value exactly
//    one wins and every win is in the history;
//  - GC takes a session-level advisory lock (LockGc), so one collector runs
//    at a time across the fleet; it is released if its process dies.
//
// Schema migrations are numbered and recorded in `sealvol_schema`; Open
// applies the missing ones under an advisory lock (so replicas starting
// together apply each once) and refuses a database migrated by a newer
// sealvol.
//
// Thread safety: safe for concurrent use from many threads and processes.
#ifndef SEALVOL_META_PG_META_STORE_H_
#define SEALVOL_META_PG_META_STORE_H_

#include <memory>
#include <string>

#include "meta/meta_store.h"

namespace sealvol {

namespace pg {
class PgPool;
class PgConn;
}  // namespace pg

class PgMetaStore : public MetaStore {
 public:
  // `url`: postgres://USER[:PASSWORD]@HOST[:PORT]/DB[?...]. With `migrate`
  // false, a database that lacks migrations is refused (naming them)
  // instead of changed.
  static Result<std::unique_ptr<PgMetaStore>> Open(const std::string& url,
                                                   bool migrate = true);
  ~PgMetaStore() override;

  // The URL without its password, for messages and logs.
  const std::string& display() const;

  // The schema version this build writes, and the database's.
  static int LatestSchema();
  Result<int> SchemaVersion();

  Status AddVersion(const VersionRecord& v) override;
  Result<VersionRecord> GetVersion(const std::string& volume,
                                   const Digest& digest) override;
  Result<std::vector<VersionRecord>> ListVersions(
      const std::string& volume) override;
  Result<std::vector<std::string>> ListVolumes() override;
  Result<Digest> GetTag(const std::string& volume,
                        const std::string& tag) override;
  Result<std::vector<TagRecord>> ListTags(const std::string& volume) override;
  Status MoveTag(const std::string& volume, const std::string& tag,
                 const std::optional<Digest>& to, const TagExpect& expect,
                 const std::string& actor, const std::string& note) override;
  Result<std::vector<TagMove>> TagHistory(const std::string& volume,
                                          const std::string& tag) override;
  Status SetPin(const std::string& deployment, const std::string& path,
                const std::string& volume, const Digest& digest,
                const std::string& actor, const std::string& reason) override;
  Result<std::vector<PinRecord>> ListPins(
      const std::string& deployment) override;
  Result<std::vector<PinMove>> PinHistory(
      const std::string& deployment) override;
  Result<std::vector<PinRecord>> PinsOfVolume(
      const std::string& volume) override;
  Result<std::vector<Digest>> AllVersionDigests() override;
  Status LinkBlobs(const std::string& ns,
                   const std::vector<Digest>& digests) override;
  Result<std::vector<Digest>> UnlinkedBlobs(
      const std::string& ns, const std::vector<Digest>& digests) override;
  Result<std::unique_ptr<GcLease>> LockGc() override;

 private:
  explicit PgMetaStore(std::unique_ptr<pg::PgPool> pool);
  Status Migrate(bool apply);

  std::unique_ptr<pg::PgPool> pool_;
};

}  // namespace sealvol

#endif  // SEALVOL_META_PG_META_STORE_H_
