// Which registry commands talk to, and with what token (docs/registry.md,
// "Client configuration").
//
// The remote is, in order: the --remote flag, $SEALVOL_REMOTE, the config
// file's top-level `remote`. A remote is a URL or the name of a [remotes.NAME]
// table; "local" means the embedded store. The token is $SEALVOL_TOKEN when
// set, else the remote's `token`, else the contents of its `token_file`.
// A URL that a [remotes.NAME] table names gets that table's token and CA
// file; $SEALVOL_CA_FILE overrides the CA file.
//
//   # ~/.config/sealvol/config.toml ($SEALVOL_CONFIG overrides the path)
//   remote = "team"
//   [remotes.team]
//   url = "https://registry.example.com"
//   token_file = "/run/secrets/sealvol-token"
//   ca_file = "/etc/sealvol/ca.pem"   # https with a private CA
//
// Thread safety: plain functions, reentrant.
#ifndef SEALVOL_CLIENT_CONFIG_H_
#define SEALVOL_CLIENT_CONFIG_H_

#include <optional>
#include <string>

#include "base/status.h"

namespace sealvol {

struct RemoteConfig {
  std::string name;  // the config name, or the URL itself
  std::string url;
  std::string token;
  std::string ca_file;  // $SEALVOL_CA_FILE, else the remote's `ca_file`
};

// $SEALVOL_CONFIG, else $XDG_CONFIG_HOME/sealvol/config.toml, else
// ~/.config/sealvol/config.toml.
std::string ConfigPath();

// The remote to use, or nullopt for the embedded store. InvalidArgument for
// an unknown name or a malformed config file (naming the line).
Result<std::optional<RemoteConfig>> ResolveRemote(const std::string& flag);

// One remote by URL or config name ("local": nullopt).
Result<std::optional<RemoteConfig>> LookupRemote(const std::string& spec);

}  // namespace sealvol

#endif  // SEALVOL_CLIENT_CONFIG_H_
