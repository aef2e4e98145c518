#include "server/metrics.h"

#include <cstdio>

namespace sealvol::server {

void Metrics::Request(const std::string& route, int status, uint64_t bytes_in,
                      uint64_t bytes_out, double seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  ++requests_[{route, status}];
  bytes_in_ += bytes_in;
  bytes_out_ += bytes_out;
  Latency& l = latency_[route];
  ++l.count;
  l.sum += seconds;
  for (size_t i = 0; i < kBuckets.size(); ++i) {
    if (seconds <= kBuckets[i]) ++l.buckets[i];
  }
}

void Metrics::BlobUpload(bool added, uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  if (added) {
    ++blobs_added_;
    blob_bytes_added_ += bytes;
  } else {
    ++blobs_deduped_;
  }
}

std::string Metrics::Render() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::string out;
  char buf[256];
  auto line = [&](const char* fmt, auto... args) {
    std::snprintf(buf, sizeof(buf), fmt, args...);
    out += buf;
  };
  out +=
      "# HELP sealvol_http_requests_total Requests by route and status.\n"
      "# TYPE sealvol_http_requests_total counter\n";
  for (const auto& [key, n] : requests_) {
    line("sealvol_http_requests_total{route=\"%s\",code=\"%d\"} %llu\n",
         key.first.c_str(), key.second, (unsigned long long)n);
  }
  out +=
      "# HELP sealvol_http_request_duration_seconds Time to answer.\n"
      "# TYPE sealvol_http_request_duration_seconds histogram\n";
  for (const auto& [route, l] : latency_) {
    for (size_t i = 0; i < kBuckets.size(); ++i) {
      line(
          "sealvol_http_request_duration_seconds_bucket{route=\"%s\",le=\"%g\"}"
          " %llu\n",
          route.c_str(), kBuckets[i], (unsigned long long)l.buckets[i]);
    }
    line(
        "sealvol_http_request_duration_seconds_bucket{route=\"%s\",le=\"+Inf\"}"
        " %llu\n",
        route.c_str(), (unsigned long long)l.count);
    line("sealvol_http_request_duration_seconds_sum{route=\"%s\"} %.6f\n",
         route.c_str(), l.sum);
    line("sealvol_http_request_duration_seconds_count{route=\"%s\"} %llu\n",
         route.c_str(), (unsigned long long)l.count);
  }
  line(
      "# TYPE sealvol_http_received_bytes_total counter\n"
      "sealvol_http_received_bytes_total %llu\n"
      "# TYPE sealvol_http_sent_bytes_total counter\n"
      "sealvol_http_sent_bytes_total %llu\n",
      (unsigned long long)bytes_in_, (unsigned long long)bytes_out_);
  line(
      "# HELP sealvol_blob_uploads_total Blob uploads; deduped ones were "
      "already in the namespace.\n"
      "# TYPE sealvol_blob_uploads_total counter\n"
      "sealvol_blob_uploads_total{result=\"added\"} %llu\n"
      "sealvol_blob_uploads_total{result=\"deduped\"} %llu\n",
      (unsigned long long)blobs_added_, (unsigned long long)blobs_deduped_);
  line(
      "# TYPE sealvol_blob_added_bytes_total counter\n"
      "sealvol_blob_added_bytes_total %llu\n"
      "# TYPE sealvol_http_connections_open gauge\n"
      "sealvol_http_connections_open %lld\n",
      (unsigned long long)blob_bytes_added_,
      (long long)connections_open_.load());
  uint64_t errors = 0;
  for (const auto& [key, n] : requests_) {
    if (key.second >= 500) errors += n;
  }
  line(
      "# HELP sealvol_http_server_errors_total Requests answered 5xx.\n"
      "# TYPE sealvol_http_server_errors_total counter\n"
      "sealvol_http_server_errors_total %llu\n",
      (unsigned long long)errors);
  return out;
}

}  // namespace sealvol::server
