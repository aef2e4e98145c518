// Bearer-token authorization for `sealvol serve` (docs/registry.md, "Auth").
//
// A tokens file has one token per line:
//   # token (or sha256:<hex of the token>)   name   grant...
//   tok_2f9c1e...                            alice  write:acme/*  read:*
//   sha256:9b71d2...                         ci     admin:acme/*
// A grant is read, write or admin over a volume-name pattern ('*' matches
// any run of characters, '/' included). write includes read; admin
// includes write and may also delete tags. Storing the sha256 form keeps
// the secret out of the file; either way the table holds only hashes.
//
// Thread safety: immutable after Load; safe to share.
#ifndef SEALVOL_SERVER_AUTH_H_
#define SEALVOL_SERVER_AUTH_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace sealvol::server {

enum class Access { kRead = 1, kWrite = 2, kAdmin = 3 };

struct Grant {
  Access access;
  std::string pattern;
};

struct Principal {
  std::string name;
  std::vector<Grant> grants;
  // True when some grant of at least `need` matches `volume`.
  bool Allows(Access need, std::string_view volume) const;
};

class TokenTable {
 public:
  // Every request is the principal "anonymous" with admin over everything
  // (`sealvol serve` without --tokens, loopback only).
  static TokenTable Open();
  // InvalidArgument naming the line for anything malformed.
  static Result<TokenTable> Parse(std::string_view text);
  static Result<TokenTable> Load(const std::string& path);

  bool open() const { return open_; }
  size_t size() const { return by_hash_.size(); }

  // The principal for an Authorization header value ("Bearer <token>"), or
  // nullopt when it is missing or names no token.
  std::optional<Principal> Authenticate(std::string_view header) const;

 private:
  bool open_ = false;
  std::map<std::string, Principal> by_hash_;  // sha256 hex of the token
};

}  // namespace sealvol::server

#endif  // SEALVOL_SERVER_AUTH_H_
