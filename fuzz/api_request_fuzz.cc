// libFuzzer target: the registry API's request handling (routing, path
// decoding, JSON bodies, digests, manifests) must never crash, and every
// answer is a valid status with an error body for each failure.
// Input: "METHOD\nTARGET\nAUTHORIZATION\nBODY".
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "meta/sqlite_meta_store.h"
#include "server/api.h"
#include "store/memory_blob_store.h"

namespace {

struct World {
  World() : meta(std::move(*sealvol::SqliteMetaStore::Open(":memory:"))) {
    tokens = *sealvol::server::TokenTable::Parse(
        "fuzz-token-0123456789 fuzzer write:acme/* read:*\n");
    api = std::make_unique<sealvol::server::Api>(&blobs, meta.get(), &tokens,
                                                 &metrics);
  }
  sealvol::MemoryBlobStore blobs;
  std::unique_ptr<sealvol::SqliteMetaStore> meta;
  sealvol::server::TokenTable tokens;
  sealvol::server::Metrics metrics;
  std::unique_ptr<sealvol::server::Api> api;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static World* world = new World();
  std::string in(reinterpret_cast<const char*>(data), size);
  sealvol::server::ApiRequest req;
  std::string* fields[] = {&req.method, &req.target, &req.authorization};
  size_t pos = 0;
  for (std::string* f : fields) {
    size_t nl = in.find('\n', pos);
    if (nl == std::string::npos) return 0;
    *f = in.substr(pos, nl - pos);
    pos = nl + 1;
  }
  req.body = in.substr(pos);
  if (req.body.size() >
          sealvol::server::Api::BodyLimit(req.method, req.target) &&
      req.body.size() > 0) {
    return 0;  // the HTTP layer answers 413 before the API sees it
  }
  auto r = world->api->Handle(req);
  if (r.status < 200 || r.status >= 600) std::abort();
  if (r.status >= 400 && r.body.find("\"error\"") == std::string::npos) {
    std::abort();
  }
  return 0;
}
