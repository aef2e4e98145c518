#include "publish/prefetch.h"

namespace sealvol {

RangePrefetcher::RangePrefetcher(std::vector<RangeTask> tasks, Fetch fetch,
                                 unsigned threads, uint64_t window_bytes)
    : tasks_(std::move(tasks)),
      fetch_(std::move(fetch)),
      window_(window_bytes),
      done_(tasks_.size()) {
  if (threads == 0) threads = 1;
  for (unsigned i = 0; i < threads; ++i)
    threads_.emplace_back([this] { Work(); });
}

RangePrefetcher::~RangePrefetcher() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void RangePrefetcher::Work() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] {
      return stop_ || next_ >= tasks_.size() || in_flight_ == 0 ||
             in_flight_ + tasks_[next_].length <= window_;
    });
    if (stop_ || next_ >= tasks_.size()) return;
    size_t i = next_++;
    in_flight_ += tasks_[i].length;
    lock.unlock();
    Result<std::string> r = fetch_(tasks_[i]);
    lock.lock();
    done_[i] = std::move(r);
    cv_.notify_all();
  }
}

Result<std::string> RangePrefetcher::Take(size_t i) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return done_[i].has_value(); });
  Result<std::string> r = std::move(*done_[i]);
  done_[i].reset();
  in_flight_ -= tasks_[i].length;
  cv_.notify_all();
  return r;
}

}  // namespace sealvol
