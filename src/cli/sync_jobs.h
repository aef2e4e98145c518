// `sealvol sync --on-server` and `sealvol sync-jobs`: sync jobs run by the
// registry (server/sync_jobs.h), started, watched and cancelled from here.
//
// Thread safety: main thread only.
#ifndef SEALVOL_CLI_SYNC_JOBS_H_
#define SEALVOL_CLI_SYNC_JOBS_H_

#include <nlohmann/json.hpp>

#include "cli/context.h"

namespace sealvol::cli {

// Starts a job on the remote `st` names and, unless `detach`, waits for it
// with a progress line, then prints the digest (or the job with --json).
// A failed job fails the command with the exit code a local sync would
// have had. Interrupting the wait leaves the job running on the server.
Status SyncOnServer(const Globals& g, Target& st, const nlohmann::json& body,
                    bool detach);

}  // namespace sealvol::cli

#endif  // SEALVOL_CLI_SYNC_JOBS_H_
