// libFuzzer target: the deployment spec parser must never crash on any
// input, and for an accepted spec, pinning every volume either fails
// cleanly or gives text that parses to exactly the pinned digests.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "deploy/spec.h"
#include "hash/sha256.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto spec = sealvol::ParseSpec(in, "fuzz.yaml", "/srv");
  if (!spec) return 0;
  std::vector<sealvol::PinEdit> edits;
  for (size_t i = 0; i < spec->volumes.size(); ++i) {
    edits.push_back({i, sealvol::Sha256::Of(std::to_string(i))});
  }
  auto out = sealvol::ApplyPins(*spec, edits);
  if (!out) return 0;
  auto again = sealvol::ParseSpec(*out, "fuzz.yaml", "/srv");
  if (!again || again->volumes.size() != edits.size()) std::abort();
  for (const auto& e : edits) {
    if (again->volumes[e.index].Pinned() != e.digest) std::abort();
  }
  return 0;
}
