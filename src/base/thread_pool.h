// A fixed-size thread pool and a byte budget that bounds how much data the
// publish pipeline holds in memory at once.
//
// Thread safety: all methods may be called from any thread. Destroying a pool
// waits for queued tasks to finish.
#ifndef SEALVOL_BASE_THREAD_POOL_H_
#define SEALVOL_BASE_THREAD_POOL_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace sealvol {

class ThreadPool {
 public:
  // threads == 0 means std::thread::hardware_concurrency().
  explicit ThreadPool(unsigned threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void Submit(std::function<void()> task);
  // Blocks until every task submitted so far has run.
  void Wait();
  unsigned size() const { return static_cast<unsigned>(workers_.size()); }

 private:
  void Loop();

  std::mutex mu_;
  std::condition_variable work_cv_;  // signalled when a task is queued
  std::condition_variable idle_cv_;  // signalled when pending_ drops to 0
  std::deque<std::function<void()>> queue_;  // GUARDED_BY(mu_)
  uint64_t pending_ = 0;                     // GUARDED_BY(mu_)
  bool stop_ = false;                        // GUARDED_BY(mu_)
  std::vector<std::thread> workers_;
};

// Counts bytes in flight; Acquire blocks while the budget is spent. A single
// request larger than the whole budget is let through when nothing else is
// held, so it can never deadlock.
class ByteBudget {
 public:
  explicit ByteBudget(uint64_t limit) : limit_(limit) {}
  void Acquire(uint64_t n);
  void Release(uint64_t n);

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  uint64_t limit_;
  uint64_t used_ = 0;  // GUARDED_BY(mu_)
};

}  // namespace sealvol

#endif  // SEALVOL_BASE_THREAD_POOL_H_
