// SyncJobs: `sealvol sync` run by the registry itself (`sealvol sync
// --on-server`, POST /v1/sync-jobs). A job reads a remote source with the
// server's own credentials and endpoints (its environment: AWS_*, HF_*,
// AZURE_STORAGE_*), never ones from the request, and commits into the
// registry like any publish.
//
// Jobs run on their own threads, at most `max_running` at once (the rest
// wait, "queued"); their state, progress and outcome are kept in memory
// for the server's lifetime (a restart forgets them; a job cut off by one
// commits nothing, and a re-run reuses every chunk it stored). Cancel stops
// a job at its next range; nothing is committed.
//
// Thread safety: all methods may be called from any thread.
#ifndef SEALVOL_SERVER_SYNC_JOBS_H_
#define SEALVOL_SERVER_SYNC_JOBS_H_

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "registry/repository.h"
#include "sources/sync.h"

namespace sealvol::server {

enum class JobState { kQueued, kRunning, kSucceeded, kFailed, kCancelled };
const char* JobStateName(JobState s);

struct JobView {
  std::string id;
  JobState state = JobState::kQueued;
  std::string source, volume, tag, actor;
  std::vector<std::string> include, exclude;
  int64_t created = 0, started = 0, finished = 0;  // unix seconds; 0 = not yet
  uint64_t total_bytes = 0, read_bytes = 0, downloaded_bytes = 0, new_bytes = 0;
  std::string digest;      // when succeeded
  std::string revision;    // upstream revision, when known
  std::string error;       // when failed
  std::string error_code;  // the StatusCode's name, for clients' exit codes
};

class SyncJobs {
 public:
  // `base` holds what every job shares (flags, publish options); each
  // request fills in source, volume, tag, filters and actor.
  SyncJobs(Repository* repo, SyncRequest base, unsigned max_running = 2);
  ~SyncJobs();  // cancels every job and waits for them
  SyncJobs(const SyncJobs&) = delete;
  SyncJobs& operator=(const SyncJobs&) = delete;

  // Queues a job; its id. InvalidArgument for a local source (a server
  // reads nothing of its own filesystem for a client) or a bad URI, name
  // or tag, checked before anything runs.
  Result<std::string> Start(SyncRequest request);
  std::optional<JobView> Get(const std::string& id);
  std::vector<JobView> List();  // newest first
  // Asks a queued or running job to stop; NotFound for an unknown id.
  Status Cancel(const std::string& id);

 private:
  struct Job;
  void Run(std::shared_ptr<Job> job);
  static JobView View(const Job& job);

  Repository* repo_;
  SyncRequest base_;
  const unsigned max_running_;
  std::mutex mu_;
  std::condition_variable slot_free_;
  unsigned running_ = 0;                              // GUARDED_BY(mu_)
  bool stopping_ = false;                             // GUARDED_BY(mu_)
  std::map<std::string, std::shared_ptr<Job>> jobs_;  // GUARDED_BY(mu_)
  std::vector<std::thread> threads_;                  // GUARDED_BY(mu_)
};

}  // namespace sealvol::server

#endif  // SEALVOL_SERVER_SYNC_JOBS_H_
