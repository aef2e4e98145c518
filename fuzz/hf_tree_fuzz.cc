// libFuzzer target: the hub's tree listing (a remote server's answer) must
// never crash the parser; accepted files have a 64-hex LFS oid or none, and
// accepted entries are files or directories.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sources/hf_source.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto tree = sealvol::ParseHfTree(in);
  if (tree) {
    for (const auto& e : *tree) {
      if (e.type != "file" && e.type != "directory") std::abort();
      if (!e.lfs_oid.empty() && e.lfs_oid.size() != 64) std::abort();
    }
  }
  (void)sealvol::LinkNext(in);
  return 0;
}
