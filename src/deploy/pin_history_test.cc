#include "deploy/pin_history.h"

#include <gtest/gtest.h>

#include "hash/sha256.h"

namespace sealvol {
namespace {

PinMove Move(const std::string& to, const std::string& reason,
             const std::string& volume = "acme/m") {
  PinMove m;
  m.path = "/m";
  m.volume = volume;
  m.to = Sha256::Of(to);
  m.reason = reason;
  return m;
}

TEST(PinHistoryTest, RollbacksWalkBackOneStepEach) {
  std::vector<PinMove> h = {Move("a", kPinByLock), Move("b", kPinByLock),
                            Move("c", kPinByLock)};
  EXPECT_EQ(PreviousPin(h, "/m", "acme/m", Sha256::Of("c")), Sha256::Of("b"));
  h.push_back(Move("b", kPinByRollback));
  EXPECT_EQ(PreviousPin(h, "/m", "acme/m", Sha256::Of("b")), Sha256::Of("a"));
  h.push_back(Move("a", kPinByRollback));
  EXPECT_EQ(PreviousPin(h, "/m", "acme/m", Sha256::Of("a")), std::nullopt);
  // A new lock starts from where the rollbacks left off.
  h.push_back(Move("d", kPinByLock));
  EXPECT_EQ(PreviousPin(h, "/m", "acme/m", Sha256::Of("d")), Sha256::Of("a"));
  // Repeats of the same pin (up after lock) are one step.
  h.push_back(Move("d", kPinByUp));
  EXPECT_EQ(PinStack(h, "/m", "acme/m", std::nullopt).size(), 2u);
}

TEST(PinHistoryTest, RollbackToElsewhereAndNewVolumesAndUnseenSpecs) {
  std::vector<PinMove> h = {Move("a", kPinByLock), Move("b", kPinByLock),
                            Move("c", kPinByLock), Move("a", kPinByRollback)};
  // --to a (not the step just below) pushes; rolling back returns to c.
  EXPECT_EQ(PreviousPin(h, "/m", "acme/m", Sha256::Of("a")), Sha256::Of("c"));
  // A spec digest the registry has not seen yet sits on top.
  EXPECT_EQ(PreviousPin(h, "/m", "acme/m", Sha256::Of("x")), Sha256::Of("a"));
  // Another volume at the same path starts over; other paths do not count.
  h.push_back(Move("z", kPinByLock, "acme/other"));
  EXPECT_EQ(PreviousPin(h, "/m", "acme/other", Sha256::Of("z")), std::nullopt);
  EXPECT_EQ(PreviousPin(h, "/n", "acme/m", Sha256::Of("a")), std::nullopt);
}

}  // namespace
}  // namespace sealvol
