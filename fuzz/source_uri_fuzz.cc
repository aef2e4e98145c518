// libFuzzer target: source URIs (typed by users, and accepted by the
// registry for server-side syncs) must never crash the parser; an accepted
// remote URI's canonical form parses back to the same spec.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sources/source_uri.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto spec = sealvol::ParseSourceUri(in);
  if (!spec || spec->kind == sealvol::SourceKind::kLocal) return 0;
  auto again = sealvol::ParseSourceUri(spec->Uri());
  if (!again || !(*again == *spec)) std::abort();
  return 0;
}
