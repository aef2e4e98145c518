#include <iomanip>
#include <iostream>
#include <sstream>

#include "cli/commands.h"

namespace sealvol::cli {

namespace {

std::string Micros(uint64_t us) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(us < 10000 ? 2 : 0)
      << static_cast<double>(us) / 1000.0 << " ms";
  return out.str();
}

void PrintHuman(const nlohmann::json& s) {
  auto u = [&](const char* k) { return s.value(k, uint64_t{0}); };
  std::cout << "mount       " << s.value("mountpoint", "") << "  "
            << s.value("ref", "") << "  pid " << s.value("pid", 0) << "\n";
  std::cout << "reads       " << u("reads") << " ("
            << HumanBytes(u("bytes_read")) << " served), " << u("read_errors")
            << " failed\n";
  std::cout << "chunks      " << u("memory_hits") << " memory hits, "
            << u("disk_hits") << " node-cache hits, " << u("fetches")
            << " fetched (" << HumanBytes(u("bytes_fetched")) << "), "
            << u("fetch_errors") << " failed, " << u("fetch_retries")
            << " retries, " << u("inflight_fetches") << " in flight\n";
  const auto& lat = s["fetch_latency_us"];
  std::cout << "fetch time  p50 " << Micros(lat.value("p50", uint64_t{0}))
            << "  p90 " << Micros(lat.value("p90", uint64_t{0})) << "  p99 "
            << Micros(lat.value("p99", uint64_t{0})) << "  (upper bounds)\n";
  const auto& nc = s["node_cache"];
  std::cout << "node cache  " << HumanBytes(nc.value("bytes", uint64_t{0}))
            << " of " << HumanBytes(nc.value("capacity", uint64_t{0})) << " in "
            << nc.value("dir", "") << "; " << u("disk_evicted") << " evicted, "
            << u("disk_dropped_corrupt") << " bad files dropped\n";
  const auto& pf = s["prefetch"];
  std::cout << "prefetch    " << pf.value("mode", "");
  if (pf.value("mode", "") == "all") {
    std::cout << ": " << HumanBytes(pf.value("hydrated_bytes", uint64_t{0}))
              << " of " << HumanBytes(pf.value("total_bytes", uint64_t{0}))
              << (pf.value("done", false) ? " (done)" : "");
  }
  std::cout << ", " << u("prefetched_chunks") << " chunks read ahead\n";
}

}  // namespace

void RegisterStats(CLI::App& app, Globals& g) {
  auto mountpoint = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand(
      "stats",
      "Show a mount's statistics: bytes read and fetched, cache hits, "
      "fetches in flight, fetch latency percentiles, node cache fill.");
  cmd->add_option("MOUNTPOINT", *mountpoint, "A sealvol mount")->required();
  cmd->add_flag("--json", g.json, "Print the statistics as JSON");
  cmd->callback([&g, mountpoint] {
    RunNoStore([&]() -> Status {
      SV_ASSIGN_OR_RETURN(nlohmann::json s, ReadMountStats(*mountpoint));
      if (g.json) {
        PrintJson(s);
      } else {
        PrintHuman(s);
      }
      return Status::Ok();
    });
  });
}

}  // namespace sealvol::cli
