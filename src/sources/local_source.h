// LocalDirSource: a local directory as a RemoteSource, so `sealvol sync`
// treats a directory like any other source (filters, incremental re-sync,
// provenance). Listing goes through the publisher's tree walker, so what
// it refuses (sockets, devices, escaping symlinks, bad names) is refused
// here too. A file's identity is its inode, size and modification time;
// one modified in the last two seconds gets none, so it is always read.
//
// Thread safety: ReadRange may be called from many threads.
#ifndef SEALVOL_SOURCES_LOCAL_SOURCE_H_
#define SEALVOL_SOURCES_LOCAL_SOURCE_H_

#include <string>

#include "publish/remote_source.h"

namespace sealvol {

class LocalDirSource : public RemoteSource {
 public:
  explicit LocalDirSource(std::string dir) : dir_(std::move(dir)) {}
  std::string Uri() const override { return "file://" + dir_; }
  Result<std::vector<RemoteEntry>> List() override;
  Result<std::string> ReadRange(const RemoteEntry& e, uint64_t offset,
                                uint64_t length) override;

 private:
  std::string dir_;
};

}  // namespace sealvol

#endif  // SEALVOL_SOURCES_LOCAL_SOURCE_H_
