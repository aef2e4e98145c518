// libFuzzer target: the GCS objects.list answer (a remote server's JSON)
// must never crash the parser; accepted objects have a name and a decimal
// generation or none.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sources/gcs_source.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto page = sealvol::ParseGcsList(in);
  if (!page) return 0;
  for (const auto& o : page->objects) {
    if (o.name.empty()) std::abort();
    if (o.generation.find_first_not_of("0123456789") != std::string::npos) {
      std::abort();
    }
  }
  return 0;
}
