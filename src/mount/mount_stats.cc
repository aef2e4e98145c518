#include "mount/mount_stats.h"

#include <bit>

namespace sealvol {

void LatencyHistogram::Record(uint64_t micros) {
  int b = micros == 0 ? 0 : std::bit_width(micros);
  if (b >= kBuckets) b = kBuckets - 1;
  buckets_[b].fetch_add(1, std::memory_order_relaxed);
}

uint64_t LatencyHistogram::count() const {
  uint64_t n = 0;
  for (const auto& b : buckets_) n += b.load(std::memory_order_relaxed);
  return n;
}

uint64_t LatencyHistogram::Quantile(double q) const {
  uint64_t total = count();
  if (total == 0) return 0;
  auto rank = static_cast<uint64_t>(q * static_cast<double>(total));
  if (rank == 0) rank = 1;
  uint64_t seen = 0;
  for (int b = 0; b < kBuckets; ++b) {
    seen += buckets_[b].load(std::memory_order_relaxed);
    if (seen >= rank) return uint64_t{1} << b;
  }
  return uint64_t{1} << (kBuckets - 1);
}

nlohmann::json MountStats::ToJson() const {
  auto v = [](const std::atomic<uint64_t>& a) {
    return a.load(std::memory_order_relaxed);
  };
  return {
      {"reads", v(reads)},
      {"bytes_read", v(bytes_read)},
      {"read_errors", v(read_errors)},
      {"memory_hits", v(memory_hits)},
      {"disk_hits", v(disk_hits)},
      {"fetches", v(fetches)},
      {"bytes_fetched", v(bytes_fetched)},
      {"fetch_errors", v(fetch_errors)},
      {"fetch_retries", v(fetch_retries)},
      {"inflight_fetches", v(inflight)},
      {"prefetched_chunks", v(prefetched)},
      {"disk_stored", v(disk_stored)},
      {"disk_store_errors", v(disk_store_errors)},
      {"disk_evicted", v(disk_evicted)},
      {"disk_dropped_corrupt", v(disk_dropped_corrupt)},
      {"fetch_latency_us",
       {{"count", fetch_latency.count()},
        {"p50", fetch_latency.Quantile(0.50)},
        {"p90", fetch_latency.Quantile(0.90)},
        {"p99", fetch_latency.Quantile(0.99)}}},
  };
}

}  // namespace sealvol
