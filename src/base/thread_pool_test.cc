#include "base/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>

namespace sealvol {
namespace {

TEST(ThreadPoolTest, RunsEveryTaskBeforeWaitReturns) {
  ThreadPool pool(3);
  std::atomic<int> sum{0};
  for (int i = 1; i <= 1000; ++i) pool.Submit([&sum, i] { sum += i; });
  pool.Wait();
  EXPECT_EQ(sum.load(), 500500);
}

TEST(ThreadPoolTest, ByteBudgetBoundsBytesInFlight) {
  ByteBudget budget(100);
  std::atomic<int64_t> in_flight{0};
  std::atomic<int64_t> peak{0};
  {
    ThreadPool pool(4);
    for (int i = 0; i < 200; ++i) {
      budget.Acquire(30);
      int64_t now = in_flight += 30;
      int64_t p = peak;
      while (now > p && !peak.compare_exchange_weak(p, now)) {
      }
      pool.Submit([&] {
        in_flight -= 30;
        budget.Release(30);
      });
    }
    pool.Wait();
  }
  EXPECT_LE(peak.load(), 90);  // three 30-byte grants fit in 100, four do not
  EXPECT_GE(peak.load(), 30);
}

TEST(ThreadPoolTest, OversizedRequestPassesWhenNothingElseIsHeld) {
  ByteBudget budget(10);
  budget.Acquire(50);  // would deadlock if it had to fit
  budget.Release(50);
  budget.Acquire(10);
  budget.Release(10);
  SUCCEED();
}

}  // namespace
}  // namespace sealvol
