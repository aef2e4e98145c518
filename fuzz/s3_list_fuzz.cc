// libFuzzer target: the ListObjectsV2 parser (a remote store's answer) must
// never crash; an accepted page has non-empty keys and a token whenever it
// says it is truncated.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sources/s3_client.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto page = sealvol::ParseListObjectsV2(in);
  if (!page) return 0;
  if (page->truncated && page->next_token.empty()) std::abort();
  for (const auto& o : page->objects) {
    if (o.key.empty()) std::abort();
  }
  return 0;
}
