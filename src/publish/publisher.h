// Publisher: turns a source tree into a manifest, storing the chunks and
// chunk indexes the store lacks. The caller commits the manifest through
// the Registry and moves the tag; until then nothing is visible.
//
// Pipeline: one scanner thread reads each file sequentially in fixed-size
// blocks (never a whole file in memory), finds chunk boundaries and hashes
// the whole file; a pool of workers hashes each chunk, asks the store
// whether it has it, compresses and stores it if not. A byte budget bounds
// the chunk data in flight. The digest depends only on the tree's content:
// not on thread count, block size or timing.
//
// Thread safety: Build may be called from one thread at a time per
// Publisher; progress counters may be read from any thread while it runs.
#ifndef SEALVOL_PUBLISH_PUBLISHER_H_
#define SEALVOL_PUBLISH_PUBLISHER_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <string>

#include "format/envelope.h"
#include "format/manifest.h"
#include "publish/file_cache.h"
#include "publish/remote_source.h"
#include "store/blob_store.h"

namespace sealvol {

struct PublishOptions {
  CompressPolicy compress = CompressPolicy::kAuto;
  unsigned threads = 0;                  // workers; 0 = one per core
  uint64_t memory_budget = 64ull << 20;  // chunk bytes in flight
  size_t read_block = 8u << 20;          // bytes per read()
  // Remote sources (BuildRemote): ranges in flight and their total size.
  unsigned fetch_threads = 8;
  uint64_t fetch_window = 96ull << 20;
  uint64_t fetch_block = 8ull << 20;  // bytes per ranged read
};

// What an earlier sync of the same source learned about one path: the
// source's identity for it then, and the manifest entry it became.
struct KnownFile {
  std::string identity;
  ManifestEntry entry;
};
using KnownFiles = std::map<std::string, KnownFile>;

// Live counters for a progress display.
struct PublishProgress {
  std::atomic<uint64_t> total_bytes{0};    // bytes of all files, once listed
  std::atomic<uint64_t> read_bytes{0};     // bytes read and chunked
  std::atomic<uint64_t> new_bytes{0};      // chunk bytes the store lacked
  std::atomic<uint64_t> reused_bytes{0};   // chunk bytes it already had
  std::atomic<uint64_t> fetched_bytes{0};  // bytes read from a remote source
  // Set from any thread to stop a BuildRemote at its next range.
  std::atomic<bool> cancel{false};
};

struct BuiltVersion {
  std::string manifest_bytes;
  Digest digest;  // SHA-256 of manifest_bytes: the version id
  Manifest manifest;
  uint64_t files = 0;
  uint64_t bytes = 0;         // file bytes in the tree
  uint64_t new_bytes = 0;     // chunk bytes stored by this run
  uint64_t reused_bytes = 0;  // chunk bytes the store already had
  uint64_t stored_bytes = 0;  // envelope bytes written (after compression)
  uint64_t chunks = 0;
  uint64_t new_chunks = 0;
  uint64_t cached_files = 0;   // files not read: the file cache knew them
  uint64_t fetched_bytes = 0;  // bytes read from a remote source
};

class Publisher {
 public:
  // `store` may be null: then nothing is stored and only the digest is
  // computed (`sealvol digest`). With a `cache` (which must belong to this
  // store), files whose identity is unchanged since an earlier publish are
  // not read again when the store still holds all their chunks.
  Publisher(BlobStore* store, PublishOptions options,
            FileCache* cache = nullptr)
      : store_(store), options_(options), cache_(cache) {}

  // Walks `dir` and builds its version. Fails, naming the path, on anything
  // the tree walker refuses, an unreadable file, or a file that changes
  // while it is read; blobs already stored stay (they are content-addressed
  // and a re-run reuses them).
  Result<BuiltVersion> Build(const std::string& dir,
                             PublishProgress* progress = nullptr);

  // Builds the version of `source`, streaming its files' bytes straight
  // into the chunker (no local copy). Files whose identity and size match
  // `known` are not read when the store still holds all their chunks. A
  // file whose bytes do not hash to the SHA-256 the source states fails the
  // build, naming it. Refuses a hostile listing before reading anything.
  Result<BuiltVersion> BuildRemote(RemoteSource& source,
                                   std::vector<RemoteEntry> entries,
                                   const KnownFiles& known,
                                   PublishProgress* progress = nullptr);

 private:
  BlobStore* store_;
  PublishOptions options_;
  FileCache* cache_;
};

}  // namespace sealvol

#endif  // SEALVOL_PUBLISH_PUBLISHER_H_
