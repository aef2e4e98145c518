// libFuzzer target: the chunk index parser must never crash, and anything
// it accepts must re-serialize to exactly the input bytes.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "format/chunk_index.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto idx = sealvol::ParseChunkIndex(in, 4u << 20, 1u << 20);
  if (idx && sealvol::SerializeChunkIndex(*idx) != in) std::abort();
  return 0;
}
