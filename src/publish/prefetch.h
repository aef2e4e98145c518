// RangePrefetcher: fetches a fixed sequence of byte ranges with several
// threads, ahead of a consumer that takes them strictly in order. At most
// `window_bytes` of ranges are fetched but not yet taken (always at least
// one), so memory stays bounded however slow the consumer is; small files
// and the blocks of a large file are all in flight together.
//
// Thread safety: Take is called from one consumer thread; the fetch
// function is called from the prefetcher's own threads.
#ifndef SEALVOL_PUBLISH_PREFETCH_H_
#define SEALVOL_PUBLISH_PREFETCH_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/status.h"

namespace sealvol {

struct RangeTask {
  size_t file = 0;  // the caller's index
  uint64_t offset = 0;
  uint64_t length = 0;
};

class RangePrefetcher {
 public:
  using Fetch = std::function<Result<std::string>(const RangeTask&)>;

  RangePrefetcher(std::vector<RangeTask> tasks, Fetch fetch, unsigned threads,
                  uint64_t window_bytes);
  // Stops fetching and waits for fetches in progress.
  ~RangePrefetcher();
  RangePrefetcher(const RangePrefetcher&) = delete;
  RangePrefetcher& operator=(const RangePrefetcher&) = delete;

  const std::vector<RangeTask>& tasks() const { return tasks_; }
  // The result of task `i`; tasks must be taken in order 0, 1, 2, ….
  Result<std::string> Take(size_t i);

 private:
  void Work();

  const std::vector<RangeTask> tasks_;
  const Fetch fetch_;
  const uint64_t window_;
  std::mutex mu_;
  std::condition_variable cv_;
  size_t next_ = 0;         // GUARDED_BY(mu_): next task to start
  uint64_t in_flight_ = 0;  // GUARDED_BY(mu_): bytes started, not taken
  bool stop_ = false;       // GUARDED_BY(mu_)
  std::vector<std::optional<Result<std::string>>> done_;  // GUARDED_BY(mu_)
  std::vector<std::thread> threads_;
};

}  // namespace sealvol

#endif  // SEALVOL_PUBLISH_PREFETCH_H_
