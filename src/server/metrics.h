// Server metrics, rendered as Prometheus text (GET /metrics). Counters are
// per route (a fixed set of names, never volume names or digests, so the
// series count stays bounded) and status code.
//
// Thread safety: every method may be called from any thread.
#ifndef SEALVOL_SERVER_METRICS_H_
#define SEALVOL_SERVER_METRICS_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace sealvol::server {

class Metrics {
 public:
  // One finished request.
  void Request(const std::string& route, int status, uint64_t bytes_in,
               uint64_t bytes_out, double seconds);
  // Blob uploads: new to the namespace or not, and the envelope bytes.
  void BlobUpload(bool added, uint64_t bytes);
  void ConnectionOpened() { ++connections_open_; }
  void ConnectionClosed() { --connections_open_; }

  std::string Render() const;

 private:
  static constexpr std::array<double, 12> kBuckets = {
      0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5};
  struct Latency {
    std::array<uint64_t, kBuckets.size()> buckets{};
    uint64_t count = 0;
    double sum = 0;
  };

  mutable std::mutex mu_;
  std::map<std::pair<std::string, int>, uint64_t> requests_;
  std::map<std::string, Latency> latency_;
  uint64_t bytes_in_ = 0, bytes_out_ = 0;
  uint64_t blobs_added_ = 0, blobs_deduped_ = 0, blob_bytes_added_ = 0;
  std::atomic<int64_t> connections_open_{0};
};

}  // namespace sealvol::server

#endif  // SEALVOL_SERVER_METRICS_H_
