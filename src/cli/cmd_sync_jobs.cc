#include <chrono>
#include <iostream>
#include <thread>

#include "cli/commands.h"
#include "cli/sync_jobs.h"
#include "client/remote_sync.h"

namespace sealvol::cli {
namespace {

using json = nlohmann::json;

bool Finished(const json& job) {
  std::string s = job.value("state", "");
  return s == "succeeded" || s == "failed" || s == "cancelled";
}

std::string Line(const json& j) {
  std::string s = j.value("id", "") + "  " + j.value("state", "") + "  " +
                  j.value("source", "") + " -> " + j.value("volume", "") + ":" +
                  j.value("tag", "");
  if (j.contains("digest")) s += "  " + j["digest"].get<std::string>();
  if (j.contains("error")) s += "  " + j["error"].value("message", "");
  return s;
}

Result<RemoteSyncJobs> JobsAt(Target& st) {
  if (!st.remote()) {
    return InvalidArgument(
        "sync jobs run on a registry: give --remote or set SEALVOL_REMOTE");
  }
  return RemoteSyncJobs(st.NewClient(ClientRetryFor()));
}

}  // namespace

Status SyncOnServer(const Globals& g, Target& st, const json& body,
                    bool detach) {
  SV_ASSIGN_OR_RETURN(RemoteSyncJobs jobs, JobsAt(st));
  SV_ASSIGN_OR_RETURN(json job, jobs.Start(body));
  std::string id = job.value("id", "");
  if (detach) {
    if (g.json) {
      PrintJson(job);
    } else {
      std::cout << id << "\n";
    }
    return Status::Ok();
  }
  if (!g.quiet && !g.json) {
    std::cerr << "sync job " << id << " started on " << st.where()
              << " (interrupting this leaves it running; cancel with "
                 "`sealvol sync-jobs "
              << id << " --cancel`)\n";
  }
  auto start = std::chrono::steady_clock::now();
  {
    json last = job;
    ProgressLine line(g, [&] {
      double secs = std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - start)
                        .count();
      return "server syncing " +
             RateLine(last.value("read_bytes", uint64_t{0}),
                      last.value("total_bytes", uint64_t{0}), secs) +
             "  downloaded " +
             HumanBytes(last.value("downloaded_bytes", uint64_t{0}));
    });
    while (!Finished(job)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
      SV_ASSIGN_OR_RETURN(job, jobs.Get(id));
      last = job;
    }
  }
  if (job.value("state", "") != "succeeded") return JobFailure(job);
  if (g.json) {
    PrintJson(job);
  } else {
    std::cout << job.value("digest", "") << "\n";
  }
  return Status::Ok();
}

void RegisterSyncJobs(CLI::App& app, Globals& g) {
  struct Args {
    std::string id;
    bool cancel = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "sync-jobs",
      "List the registry's sync jobs (those on volumes the token can read), "
      "show one, or cancel it.");
  cmd->add_option("ID", a->id, "A job id (from `sync --on-server`)");
  cmd->add_flag("--cancel", a->cancel, "Cancel job ID; nothing is committed");
  cmd->add_flag("--json", g.json, "Print JSON");
  cmd->callback([&g, a] {
    RunTarget(g, EmbeddedStore::Lock::kNone, [&](Target& st) -> Status {
      SV_ASSIGN_OR_RETURN(RemoteSyncJobs jobs, JobsAt(st));
      if (a->cancel && a->id.empty()) {
        return InvalidArgument("--cancel needs a job ID");
      }
      if (a->id.empty()) {
        SV_ASSIGN_OR_RETURN(json list, jobs.List());
        if (g.json) {
          PrintJson(list);
        } else {
          for (const auto& j : list["jobs"]) std::cout << Line(j) << "\n";
        }
        return Status::Ok();
      }
      SV_ASSIGN_OR_RETURN(json job,
                          a->cancel ? jobs.Cancel(a->id) : jobs.Get(a->id));
      if (g.json) {
        PrintJson(job);
      } else {
        std::cout << Line(job) << "\n";
      }
      return Status::Ok();
    });
  });
}

}  // namespace sealvol::cli
