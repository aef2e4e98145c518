// FileCache: remembers what a previous publish into the same store learned
// about each source file (its sha256 and chunk index), keyed by the file's
// identity: absolute path, device, inode, size, and modification and change
// times in nanoseconds. Re-publishing an unchanged tree then reads no file
// data: the publisher only checks that the store still has every chunk.
//
// A file whose times are within kRacyWindowNs of the moment it was read is
// not recorded, since a write in the same clock tick would not change them.
// `sealvol publish --no-cache` skips the cache; `sealvol digest` never uses
// it.
//
// Thread safety: not thread safe; the publisher uses it from one thread.
#ifndef SEALVOL_PUBLISH_FILE_CACHE_H_
#define SEALVOL_PUBLISH_FILE_CACHE_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "hash/digest.h"
#include "publish/tree_walker.h"

namespace sealvol {

struct CachedFile {
  Digest sha256;
  std::optional<Digest> chunks;  // chunk index; absent for one chunk
};

class FileCache {
 public:
  static constexpr int64_t kRacyWindowNs = 2'000'000'000;

  // Opens (creating) the cache database at `path`.
  static Result<std::unique_ptr<FileCache>> Open(const std::string& path);
  ~FileCache();

  // The cached result for `f` if its identity is unchanged.
  std::optional<CachedFile> Lookup(const SourceFile& f);
  // Queues a record; `read_at_ns` is when the file was read (realtime).
  void Record(const SourceFile& f, const CachedFile& c, int64_t read_at_ns);
  // Writes queued records in one transaction.
  Status Flush();

 private:
  struct Db;
  struct Pending {
    SourceFile file;
    CachedFile result;
  };
  explicit FileCache(std::unique_ptr<Db> db);
  std::unique_ptr<Db> db_;
  std::vector<Pending> pending_;
};

}  // namespace sealvol

#endif  // SEALVOL_PUBLISH_FILE_CACHE_H_
