// The registry API, version 1 (docs/registry.md), independent of the HTTP
// library: a parsed request in, a response out. http_server.cc moves bytes;
// this file decides what they mean, so the rules are unit-tested without
// sockets.
//
// Every volume route checks the token's grant for that volume; blobs are
// read and written through the volume's namespace (NamespacedBlobStore).
//
// Thread safety: Handle may be called from many threads at once.
#ifndef SEALVOL_SERVER_API_H_
#define SEALVOL_SERVER_API_H_

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "registry/api_limits.h"
#include "registry/registry.h"
#include "server/auth.h"
#include "server/metrics.h"
#include "server/sync_jobs.h"

namespace sealvol::server {

struct ApiRequest {
  std::string method;  // "GET", "PUT", ...
  std::string target;  // path and query, as sent
  std::string authorization;
  std::string annotations;  // the Sealvol-Annotations header (commit)
  std::string body;
};

struct ApiResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::string route = "other";  // metrics label
  std::string actor = "-";      // access log
};

using api::kMaxAnnotations;
using api::kMaxMissingBatch;
using api::kMaxSmallBody;

class Api {
 public:
  Api(BlobStore* blobs, MetaStore* meta, const TokenTable* tokens,
      Metrics* metrics)
      : registry_(blobs, meta),
        blobs_(blobs),
        meta_(meta),
        tokens_(tokens),
        metrics_(metrics) {}

  // The largest body a request to `target` may carry, known from the
  // request line alone (the server refuses a larger one before reading).
  static uint64_t BodyLimit(const std::string& method,
                            const std::string& target);

  ApiResponse Handle(const ApiRequest& req);

  // Enables /v1/sync-jobs (api_sync.cc); without it those routes are 404.
  void SetSyncJobs(SyncJobs* jobs) { sync_jobs_ = jobs; }

  // Blob GETs the caller may read answer 307 with the URL this gives (a
  // presigned URL into the bucket) instead of the bytes. Empty: serve them.
  void SetBlobRedirect(std::function<std::string(const Digest&)> presign) {
    presign_ = std::move(presign);
  }

 private:
  struct Call;
  ApiResponse Route(Call& call);
  ApiResponse Missing(Call& call);
  ApiResponse PutBlob(Call& call, const std::string& digest);
  ApiResponse GetBlob(Call& call, const std::string& digest);
  ApiResponse Commit(Call& call, const std::string& digest);
  ApiResponse GetManifest(Call& call, const std::string& ref);
  ApiResponse ListVolumes(Call& call);
  ApiResponse ShowVolume(Call& call);
  ApiResponse GetTag(Call& call, const std::string& tag);
  ApiResponse MoveTag(Call& call, const std::string& tag);
  ApiResponse History(Call& call, const std::string& tag);
  // /v1/deployments/{rest} (api_deployments.cc); sets `route`.
  ApiResponse Deployment(const Principal& who, const std::string& method,
                         std::string rest, const std::string& body,
                         std::string* route);
  // /v1/sync-jobs[/{id}] (api_sync.cc); sets `route`.
  ApiResponse SyncJob(const Principal& who, const std::string& method,
                      const std::string& id, const std::string& body,
                      std::string* route);

  Registry registry_;
  BlobStore* blobs_;
  MetaStore* meta_;
  const TokenTable* tokens_;
  Metrics* metrics_;
  SyncJobs* sync_jobs_ = nullptr;
  std::function<std::string(const Digest&)> presign_;
};

}  // namespace sealvol::server

#endif  // SEALVOL_SERVER_API_H_
