#include "deploy/pin_history.h"

namespace sealvol {

std::vector<Digest> PinStack(const std::vector<PinMove>& history,
                             const std::string& path, const std::string& volume,
                             const std::optional<Digest>& current) {
  std::vector<Digest> stack;
  for (const PinMove& m : history) {
    if (m.path != path) continue;
    if (m.volume != volume) {
      stack.clear();
      continue;
    }
    if (m.reason == kPinByRollback && stack.size() >= 2 &&
        stack[stack.size() - 2] == m.to) {
      stack.pop_back();
    } else if (stack.empty() || stack.back() != m.to) {
      stack.push_back(m.to);
    }
  }
  if (current && (stack.empty() || stack.back() != *current)) {
    stack.push_back(*current);
  }
  return stack;
}

std::optional<Digest> PreviousPin(const std::vector<PinMove>& history,
                                  const std::string& path,
                                  const std::string& volume,
                                  const std::optional<Digest>& current) {
  std::vector<Digest> stack = PinStack(history, path, volume, current);
  if (stack.size() < 2) return std::nullopt;
  return stack[stack.size() - 2];
}

}  // namespace sealvol
