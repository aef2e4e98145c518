// libFuzzer target: Azure's List Blobs answer and connection strings must
// never crash their parsers; accepted blobs have non-empty names.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sources/azure_source.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto page = sealvol::ParseListBlobs(in);
  if (page) {
    for (const auto& b : page->blobs) {
      if (b.name.empty()) std::abort();
    }
  }
  auto kv = sealvol::ParseConnectionString(in);
  if (kv) {
    for (const auto& [k, v] : *kv) {
      if (k.empty()) std::abort();
    }
  }
  return 0;
}
