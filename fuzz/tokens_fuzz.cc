// libFuzzer target: the tokens file parser must never crash, and a table
// it accepts authenticates only headers of the form "Bearer <token>".
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "server/auth.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto table = sealvol::server::TokenTable::Parse(in);
  if (table) {
    if (table->size() == 0) std::abort();
    if (table->Authenticate("").has_value()) std::abort();
    auto p = table->Authenticate(in.substr(0, in.find('\n')));
    if (p && p->grants.empty()) std::abort();
  }
  return 0;
}
