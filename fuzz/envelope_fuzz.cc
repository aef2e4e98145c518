// libFuzzer target: envelope decoding must never crash or return more than
// the cap, whatever the codec byte and payload.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "format/envelope.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  constexpr uint64_t kCap = 1 << 16;
  auto out = sealvol::DecodeEnvelope(in, kCap);
  if (out && out->size() > kCap) std::abort();
  return 0;
}
