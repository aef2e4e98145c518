// libFuzzer target: the manifest parser must never crash, and anything it
// accepts must re-serialize to exactly the input bytes.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "format/manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto m = sealvol::ParseManifest(in);
  if (m) {
    auto again = sealvol::SerializeManifest(*m);
    if (!again || *again != in) std::abort();
  }
  return 0;
}
