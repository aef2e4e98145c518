#include "client/config.h"

#include <sys/stat.h>
#include <toml++/toml.h>

#include <cstdlib>

#include "base/file.h"

namespace sealvol {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// The parsed config file; an empty table when there is none.
Result<toml::table> LoadConfig() {
  std::string path = ConfigPath();
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return toml::table{};
  SV_ASSIGN_OR_RETURN(std::string text, ReadFile(path, 1 << 20));
  try {
    return toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    return InvalidArgument(path + " line " +
                           std::to_string(e.source().begin.line) + ": " +
                           std::string(e.description()));
  }
}

}  // namespace

std::string ConfigPath() {
  if (std::string p = Env("SEALVOL_CONFIG"); !p.empty()) return p;
  if (std::string x = Env("XDG_CONFIG_HOME"); !x.empty()) {
    return x + "/sealvol/config.toml";
  }
  std::string home = Env("HOME");
  return (home.empty() ? std::string(".") : home) +
         "/.config/sealvol/config.toml";
}

Result<std::optional<RemoteConfig>> LookupRemote(const std::string& spec) {
  if (spec.empty() || spec == "local") return std::optional<RemoteConfig>();
  RemoteConfig rc;
  std::string token_file;
  if (spec.find("://") != std::string::npos) {
    // Several replicas of one registry: "URL,URL,...".
    std::string rest = spec;
    for (;;) {
      size_t comma = rest.find(',');
      std::string one = rest.substr(0, comma);
      if (one.rfind("http://", 0) != 0 && one.rfind("https://", 0) != 0) {
        return InvalidArgument(
            "remote URL must start with http:// or https://: " + one);
      }
      if (comma == std::string::npos) break;
      rest = rest.substr(comma + 1);
    }
    rc.name = spec;
    rc.url = spec;
    while (!rc.url.empty() && rc.url.back() == '/') rc.url.pop_back();
    // A URL that a configured remote names gets that remote's token.
    SV_ASSIGN_OR_RETURN(toml::table cfg, LoadConfig());
    if (auto* remotes = cfg["remotes"].as_table()) {
      for (auto& [name, entry] : *remotes) {
        std::string url =
            entry.as_table()
                ? (*entry.as_table())["url"].value_or(std::string())
                : std::string();
        while (!url.empty() && url.back() == '/') url.pop_back();
        if (url != rc.url) continue;
        rc.token = (*entry.as_table())["token"].value_or(std::string());
        token_file = (*entry.as_table())["token_file"].value_or(std::string());
        rc.ca_file = (*entry.as_table())["ca_file"].value_or(std::string());
        break;
      }
    }
  } else {
    SV_ASSIGN_OR_RETURN(toml::table cfg, LoadConfig());
    auto entry = cfg["remotes"][spec];
    if (!entry.is_table()) {
      return InvalidArgument("no remote named '" + spec + "' in " +
                             ConfigPath() + " (give a URL, or add [remotes." +
                             spec + "])");
    }
    rc.name = spec;
    rc.url = entry["url"].value_or(std::string());
    if (rc.url.empty()) {
      return InvalidArgument("remote '" + spec + "' in " + ConfigPath() +
                             " has no url");
    }
    rc.token = entry["token"].value_or(std::string());
    token_file = entry["token_file"].value_or(std::string());
    rc.ca_file = entry["ca_file"].value_or(std::string());
  }
  if (std::string t = Env("SEALVOL_TOKEN"); !t.empty()) {
    rc.token = t;
  } else if (rc.token.empty() && !token_file.empty()) {
    SV_ASSIGN_OR_RETURN(rc.token, ReadFile(token_file, 64 << 10));
    while (!rc.token.empty() &&
           (rc.token.back() == '\n' || rc.token.back() == '\r' ||
            rc.token.back() == ' ')) {
      rc.token.pop_back();
    }
  }
  if (std::string ca = Env("SEALVOL_CA_FILE"); !ca.empty()) rc.ca_file = ca;
  while (!rc.url.empty() && rc.url.back() == '/') rc.url.pop_back();
  return std::optional<RemoteConfig>(rc);
}

Result<std::optional<RemoteConfig>> ResolveRemote(const std::string& flag) {
  if (!flag.empty()) return LookupRemote(flag);
  if (std::string env = Env("SEALVOL_REMOTE"); !env.empty()) {
    return LookupRemote(env);
  }
  SV_ASSIGN_OR_RETURN(toml::table cfg, LoadConfig());
  std::string name = cfg["remote"].value_or(std::string());
  return LookupRemote(name);
}

}  // namespace sealvol
