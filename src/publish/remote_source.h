// RemoteSource: a tree that lives somewhere else (a bucket prefix, a Hugging
// Face repo), as the publisher reads it: a listing, then byte ranges of its
// files. Implementations live in sources/; the publisher only sees this.
//
// Thread safety: ReadRange is called from several threads at once; List is
// called once, before any ReadRange.
#ifndef SEALVOL_PUBLISH_REMOTE_SOURCE_H_
#define SEALVOL_PUBLISH_REMOTE_SOURCE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "format/manifest.h"
#include "hash/digest.h"

namespace sealvol {

struct RemoteEntry {
  std::string path;  // relative, as it will appear in the manifest
  EntryType type = EntryType::kFile;
  bool executable = false;
  uint64_t size = 0;
  std::string target;  // symlinks
  // What the source says identifies this content (an ETag, an LFS oid, a
  // blob id): equal identity and size means the bytes are unchanged.
  std::string identity;
  // A SHA-256 of the whole file stated by the source (an LFS oid, an S3
  // ChecksumSHA256): the bytes read must hash to it.
  std::optional<Digest> stated_sha256;
  // Where to read it, in the source's own terms (a key, a URL path).
  std::string locator;
};

class RemoteSource {
 public:
  virtual ~RemoteSource() = default;
  // The source as a URI without credentials, for messages and annotations.
  virtual std::string Uri() const = 0;
  // Where identities are comparable: files of an earlier sync with the same
  // scope and identity are the same bytes. By default the URI; a hub repo
  // drops the revision, since its identities are content hashes.
  virtual std::string IdentityScope() const { return Uri(); }
  // The upstream revision the listing came from (a hub commit), once List
  // has run; empty where the source has no such notion.
  virtual std::string Revision() const { return ""; }
  // Every entry, in any order. Paths need not be checked: the publisher
  // refuses hostile ones.
  virtual Result<std::vector<RemoteEntry>> List() = 0;
  // `length` bytes of `e` from `offset`. Fewer (or more) bytes than asked
  // mean the file changed while it was read.
  virtual Result<std::string> ReadRange(const RemoteEntry& e, uint64_t offset,
                                        uint64_t length) = 0;
};

// Refuses a listing no version can hold, naming the entry: bad or
// duplicate paths, a file where another entry needs a directory, bad
// symlinks. Sorts `entries` bytewise by path.
Status CheckRemoteListing(std::vector<RemoteEntry>* entries);

}  // namespace sealvol

#endif  // SEALVOL_PUBLISH_REMOTE_SOURCE_H_
