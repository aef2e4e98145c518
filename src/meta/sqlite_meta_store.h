// SqliteMetaStore: the embedded MetaStore, one SQLite database file in WAL
// mode. Writers take the database lock up front (BEGIN IMMEDIATE) and wait
// for each other (busy timeout), so many `sealvol` processes can publish and
// tag at once; a tag's compare-and-swap runs inside one transaction.
//
// Thread safety: safe for concurrent use; calls are serialized on one
// connection per object, and processes coordinate through SQLite's locks.
#ifndef SEALVOL_META_SQLITE_META_STORE_H_
#define SEALVOL_META_SQLITE_META_STORE_H_

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "meta/meta_store.h"

namespace sealvol {

class SqliteMetaStore : public MetaStore {
 public:
  // Opens (creating when missing) the database at `path` and applies the
  // schema. ":memory:" gives a private in-memory database.
  static Result<std::unique_ptr<SqliteMetaStore>> Open(const std::string& path);
  ~SqliteMetaStore() override;

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
  // An flock on `<database>.gc-lock` (in-process for ":memory:").
  Result<std::unique_ptr<GcLease>> LockGc() override;

 private:
  struct Db;
  SqliteMetaStore(std::unique_ptr<Db> db, std::string path);

  std::mutex mu_;  // serializes use of the one connection
  std::unique_ptr<Db> db_;
  std::string path_;
  std::shared_ptr<std::atomic<bool>> gc_running_ =
      std::make_shared<std::atomic<bool>>(false);
};

}  // namespace sealvol

#endif  // SEALVOL_META_SQLITE_META_STORE_H_
