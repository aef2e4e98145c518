#include "server/sync_jobs.h"

#include <algorithm>
#include <ctime>
#include <random>

#include "format/names.h"
#include "hash/hmac.h"

namespace sealvol::server {

struct SyncJobs::Job {
  SyncRequest request;
  PublishProgress progress;  // progress.cancel stops the build
  std::mutex mu;
  JobView view;  // GUARDED_BY(mu), except the progress fields
};

namespace {

int64_t Now() { return static_cast<int64_t>(::time(nullptr)); }

std::string NewId() {
  std::random_device rd;
  std::string raw(8, '\0');
  for (auto& c : raw) c = static_cast<char>(rd());
  return HexEncode(raw);
}

const char* CodeName(StatusCode c) {
  switch (c) {
    case StatusCode::kNotFound:
      return "not_found";
    case StatusCode::kCorruption:
      return "corrupt";
    case StatusCode::kInvalidArgument:
      return "invalid";
    case StatusCode::kPermissionDenied:
      return "denied";
    case StatusCode::kFailedPrecondition:
    case StatusCode::kAlreadyExists:
      return "conflict";
    case StatusCode::kUnavailable:
      return "unavailable";
    default:
      return "internal";
  }
}

}  // namespace

const char* JobStateName(JobState s) {
  switch (s) {
    case JobState::kQueued:
      return "queued";
    case JobState::kRunning:
      return "running";
    case JobState::kSucceeded:
      return "succeeded";
    case JobState::kFailed:
      return "failed";
    case JobState::kCancelled:
      return "cancelled";
  }
  return "unknown";
}

SyncJobs::SyncJobs(Repository* repo, SyncRequest base, unsigned max_running)
    : repo_(repo), base_(std::move(base)), max_running_(max_running) {}

SyncJobs::~SyncJobs() {
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    for (auto& [id, job] : jobs_) job->progress.cancel = true;
    threads.swap(threads_);
  }
  slot_free_.notify_all();
  for (auto& t : threads) t.join();
}

JobView SyncJobs::View(const Job& job) {
  JobView v = job.view;
  v.total_bytes = job.progress.total_bytes;
  v.read_bytes = job.progress.read_bytes;
  v.downloaded_bytes = job.progress.fetched_bytes;
  v.new_bytes = job.progress.new_bytes;
  return v;
}

Result<std::string> SyncJobs::Start(SyncRequest request) {
  SV_ASSIGN_OR_RETURN(SourceSpec spec, ParseSourceUri(request.source));
  if (spec.kind == SourceKind::kLocal) {
    return InvalidArgument(
        "a server-side sync reads remote sources only (hf://, s3://, r2://, "
        "cw://, gs://, az://), not the server's own files");
  }
  SV_RETURN_IF_ERROR(ValidateVolumeName(request.volume));
  SV_RETURN_IF_ERROR(ValidateTag(request.tag));
  auto job = std::make_shared<Job>();
  // What to sync comes from the request; how (flags, credentials' home,
  // publish options) from the server.
  SyncRequest r = std::move(request);
  r.flags = base_.flags;
  r.publish = base_.publish;
  r.annotations = base_.annotations;
  r.annotations["user"] = r.actor;
  r.annotations["created"] = UtcNow();
  r.annotations["via"] = "server";
  job->request = std::move(r);
  JobView& v = job->view;
  v.id = NewId();
  v.source = job->request.source;
  v.volume = job->request.volume;
  v.tag = job->request.tag;
  v.actor = job->request.actor;
  v.include = job->request.include;
  v.exclude = job->request.exclude;
  v.created = Now();
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_) return Unavailable("the server is stopping");
  jobs_[v.id] = job;
  threads_.emplace_back([this, job] { Run(job); });
  return v.id;
}

void SyncJobs::Run(std::shared_ptr<Job> job) {
  {
    std::unique_lock<std::mutex> lock(mu_);
    slot_free_.wait(lock, [&] {
      return stopping_ || job->progress.cancel || running_ < max_running_;
    });
    if (stopping_ || job->progress.cancel) {
      std::lock_guard<std::mutex> jl(job->mu);
      job->view.state = JobState::kCancelled;
      job->view.finished = Now();
      return;
    }
    ++running_;
  }
  {
    std::lock_guard<std::mutex> jl(job->mu);
    job->view.state = JobState::kRunning;
    job->view.started = Now();
  }
  Result<SyncResult> r = RunSync(*repo_, job->request, &job->progress);
  {
    std::lock_guard<std::mutex> jl(job->mu);
    job->view.finished = Now();
    if (r) {
      job->view.state = JobState::kSucceeded;
      job->view.digest = r->digest.ToString();
      job->view.revision = r->revision;
    } else if (job->progress.cancel) {
      job->view.state = JobState::kCancelled;
    } else {
      job->view.state = JobState::kFailed;
      job->view.error = r.error().message();
      job->view.error_code = CodeName(r.error().code());
    }
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    --running_;
  }
  slot_free_.notify_all();
}

std::optional<JobView> SyncJobs::Get(const std::string& id) {
  std::shared_ptr<Job> job;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = jobs_.find(id);
    if (it == jobs_.end()) return std::nullopt;
    job = it->second;
  }
  std::lock_guard<std::mutex> jl(job->mu);
  return View(*job);
}

std::vector<JobView> SyncJobs::List() {
  std::vector<std::shared_ptr<Job>> jobs;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [id, j] : jobs_) jobs.push_back(j);
  }
  std::vector<JobView> out;
  for (auto& j : jobs) {
    std::lock_guard<std::mutex> jl(j->mu);
    out.push_back(View(*j));
  }
  std::sort(out.begin(), out.end(), [](const JobView& a, const JobView& b) {
    return a.created != b.created ? a.created > b.created : a.id < b.id;
  });
  return out;
}

Status SyncJobs::Cancel(const std::string& id) {
  std::shared_ptr<Job> job;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = jobs_.find(id);
    if (it == jobs_.end()) return NotFound("no sync job " + id);
    job = it->second;
  }
  job->progress.cancel = true;
  slot_free_.notify_all();
  return Status::Ok();
}

}  // namespace sealvol::server
