// libFuzzer target: the ListObjectsV2 parser (a remote store's answer) and
// the timestamp parser GC reads blob ages with must never crash; an accepted
// page has non-empty keys and a token whenever it says it is truncated, and
// a parsed time round-trips through the ISO 8601 form.
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <string_view>

#include "sources/s3_client.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto page = sealvol::ParseListObjectsV2(in);
  if (!page) return 0;
  if (page->truncated && page->next_token.empty()) std::abort();
  for (const auto& o : page->objects) {
    if (o.key.empty()) std::abort();
    auto t = sealvol::ParseS3Time(o.last_modified);
    if (!t) continue;
    char iso[32];
    time_t tt = static_cast<time_t>(*t);
    struct tm tm;
    if (gmtime_r(&tt, &tm) == nullptr) continue;
    if (tm.tm_year < -1000 || tm.tm_year > 8000) continue;
    strftime(iso, sizeof(iso), "%Y-%m-%dT%H:%M:%S", &tm);
    if (sealvol::ParseS3Time(iso) != t) std::abort();
  }
  return 0;
}
