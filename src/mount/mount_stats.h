// Counters a mount keeps while it serves, shown by `sealvol stats`
// (docs/mount.md lists each field). Fetch latency is a log2 histogram of
// microseconds, from which percentiles are read.
//
// Thread safety: every member is atomic; Record and ToJson may be called
// from any thread.
#ifndef SEALVOL_MOUNT_MOUNT_STATS_H_
#define SEALVOL_MOUNT_MOUNT_STATS_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <nlohmann/json.hpp>

namespace sealvol {

class LatencyHistogram {
 public:
  void Record(uint64_t micros);
  // The upper bound (µs) of the bucket holding quantile q (0 < q <= 1); 0
  // when nothing was recorded.
  uint64_t Quantile(double q) const;
  uint64_t count() const;

 private:
  static constexpr int kBuckets = 40;  // bucket b holds [2^(b-1), 2^b) µs
  std::array<std::atomic<uint64_t>, kBuckets> buckets_{};
};

struct MountStats {
  // What readers asked for and got.
  std::atomic<uint64_t> reads{0};
  std::atomic<uint64_t> bytes_read{0};
  std::atomic<uint64_t> read_errors{0};  // reads answered with EIO
  // Where chunks came from.
  std::atomic<uint64_t> memory_hits{0};
  std::atomic<uint64_t> disk_hits{0};
  std::atomic<uint64_t> fetches{0};        // blobs fetched from the store
  std::atomic<uint64_t> bytes_fetched{0};  // their decoded bytes
  std::atomic<uint64_t> fetch_errors{0};   // fetches that failed for good
  std::atomic<uint64_t> fetch_retries{0};
  std::atomic<uint64_t> inflight{0};    // store fetches running now
  std::atomic<uint64_t> prefetched{0};  // chunks fetched ahead of a reader
  // The node cache.
  std::atomic<uint64_t> disk_stored{0};
  std::atomic<uint64_t> disk_store_errors{0};
  std::atomic<uint64_t> disk_evicted{0};
  std::atomic<uint64_t> disk_dropped_corrupt{0};
  LatencyHistogram fetch_latency;

  nlohmann::json ToJson() const;
};

}  // namespace sealvol

#endif  // SEALVOL_MOUNT_MOUNT_STATS_H_
