// RemoteSyncJobs: the registry's sync-job API (POST/GET/DELETE
// /v1/sync-jobs, docs/registry.md) for `sealvol sync --on-server` and
// `sealvol sync-jobs`. Jobs are JSON objects as the server sends them.
//
// Thread safety: safe for concurrent use (HttpClient is).
#ifndef SEALVOL_CLIENT_REMOTE_SYNC_H_
#define SEALVOL_CLIENT_REMOTE_SYNC_H_

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "base/status.h"
#include "client/http_client.h"

namespace sealvol {

class RemoteSyncJobs {
 public:
  explicit RemoteSyncJobs(std::shared_ptr<HttpClient> client)
      : client_(std::move(client)) {}

  // Starts a job; the job as queued.
  Result<nlohmann::json> Start(const nlohmann::json& request);
  Result<nlohmann::json> Get(const std::string& id);
  Result<nlohmann::json> List();  // {"jobs": [...]}
  Result<nlohmann::json> Cancel(const std::string& id);

 private:
  std::shared_ptr<HttpClient> client_;
};

// The Status a failed job's "error" stands for (its code picks the kind),
// so the CLI exits as it would have for a sync run locally.
Status JobFailure(const nlohmann::json& job);

}  // namespace sealvol

#endif  // SEALVOL_CLIENT_REMOTE_SYNC_H_
