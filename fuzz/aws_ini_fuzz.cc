// libFuzzer target: the AWS credentials/config file parser must never crash
// on any file, and keys it accepts are lowercase and non-empty.
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sources/aws_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto ini = sealvol::ParseIni(in);
  if (!ini) return 0;
  for (const auto& [section, keys] : *ini) {
    if (section.empty()) std::abort();
    for (const auto& [k, v] : keys) {
      if (k.empty()) std::abort();
      for (char c : k) {
        if (std::isupper(static_cast<unsigned char>(c))) std::abort();
      }
    }
  }
  return 0;
}
