// libFuzzer target: the manifest parser must never crash, anything it
// accepts must re-serialize to exactly the input bytes, and its direct
// canonical reader must agree with the reference parser on every input.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "format/manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto m = sealvol::ParseManifest(in);
  auto ref = sealvol::ParseManifestReference(in);
  if (m.has_value() != ref.has_value()) std::abort();
  if (m && m->entries != ref->entries) std::abort();
  if (m) {
    auto again = sealvol::SerializeManifest(*m);
    if (!again || *again != in) std::abort();
  }
  return 0;
}
