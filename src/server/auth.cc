#include "server/auth.h"

#include <fnmatch.h>

#include <sstream>

#include "base/file.h"
#include "hash/sha256.h"

namespace sealvol::server {

bool Principal::Allows(Access need, std::string_view volume) const {
  std::string v(volume);
  for (const Grant& g : grants) {
    if (static_cast<int>(g.access) < static_cast<int>(need)) continue;
    if (fnmatch(g.pattern.c_str(), v.c_str(), 0) == 0) return true;
  }
  return false;
}

TokenTable TokenTable::Open() {
  TokenTable t;
  t.open_ = true;
  return t;
}

Result<TokenTable> TokenTable::Parse(std::string_view text) {
  TokenTable t;
  std::istringstream in{std::string(text)};
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    auto where = [&](const std::string& what) {
      return InvalidArgument("tokens file line " + std::to_string(n) + ": " +
                             what);
    };
    if (auto hash = line.find('#'); hash != std::string::npos) {
      line.resize(hash);
    }
    std::istringstream fields(line);
    std::string token, name, grant;
    if (!(fields >> token)) continue;  // blank or comment
    if (!(fields >> name)) return where("expected: TOKEN NAME GRANT...");
    Principal p;
    p.name = name;
    while (fields >> grant) {
      size_t colon = grant.find(':');
      if (colon == std::string::npos || colon + 1 == grant.size()) {
        return where("grant '" + grant + "' is not ACCESS:PATTERN");
      }
      std::string access = grant.substr(0, colon);
      Grant g{Access::kRead, grant.substr(colon + 1)};
      if (access == "read") {
        g.access = Access::kRead;
      } else if (access == "write") {
        g.access = Access::kWrite;
      } else if (access == "admin") {
        g.access = Access::kAdmin;
      } else {
        return where("unknown access '" + access +
                     "' (expected read, write or admin)");
      }
      p.grants.push_back(std::move(g));
    }
    if (p.grants.empty()) return where("token for '" + name + "' has no grant");
    std::string key;
    if (token.rfind("sha256:", 0) == 0) {
      auto d = Digest::Parse(token);
      if (!d) return where("bad token hash: " + d.error().message());
      key = d->Hex();
    } else {
      if (token.size() < 16) {
        return where("token for '" + name + "' is shorter than 16 characters");
      }
      key = Sha256::Of(token).Hex();
    }
    if (!t.by_hash_.emplace(key, std::move(p)).second) {
      return where("the same token appears twice");
    }
  }
  if (t.by_hash_.empty()) return InvalidArgument("tokens file has no tokens");
  return t;
}

Result<TokenTable> TokenTable::Load(const std::string& path) {
  SV_ASSIGN_OR_RETURN(std::string text, ReadFile(path, 16 << 20));
  auto t = Parse(text);
  if (!t) return t.error().WithContext(path);
  return t;
}

std::optional<Principal> TokenTable::Authenticate(
    std::string_view header) const {
  if (open_) return Principal{"anonymous", {{Access::kAdmin, "*"}}};
  constexpr std::string_view kBearer = "Bearer ";
  if (header.substr(0, kBearer.size()) != kBearer) return std::nullopt;
  std::string_view token = header.substr(kBearer.size());
  // Looked up by hash, so lookup time says nothing about the secret.
  auto it = by_hash_.find(Sha256::Of(token).Hex());
  if (it == by_hash_.end()) return std::nullopt;
  return it->second;
}

}  // namespace sealvol::server
