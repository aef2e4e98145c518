// libFuzzer target: ref and digest parsing must never crash, and an
// accepted ref prints back to a form that parses to the same ref.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "format/names.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto ref = sealvol::ParseRef(in);
  if (ref) {
    auto again = sealvol::ParseRef(ref->ToString());
    if (!again || again->ToString() != ref->ToString()) std::abort();
  }
  (void)sealvol::Digest::Parse(in);
  (void)sealvol::ValidatePath(in);
  return 0;
}
