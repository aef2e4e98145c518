#include "sources/aws_config.h"

#include <algorithm>
#include <cstdlib>

#include "base/file.h"
#include "sources/source_util.h"

namespace sealvol {
namespace {

using sources_internal::Env;

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// The file's sections, or empty when it does not exist.
Result<IniSections> ReadIni(const std::string& path) {
  auto text = ReadFile(path, 1 << 20);
  if (!text) {
    if (text.error().code() == StatusCode::kNotFound) return IniSections{};
    return text.error();
  }
  auto parsed = ParseIni(*text);
  if (!parsed) return InvalidArgument(path + ":" + parsed.error().message());
  return parsed;
}

}  // namespace

Result<IniSections> ParseIni(std::string_view text) {
  IniSections out;
  std::string section;
  bool have_section = false;
  size_t line_no = 0;
  while (!text.empty()) {
    ++line_no;
    size_t nl = text.find('\n');
    std::string_view raw = text.substr(0, nl);
    text =
        nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    bool indented = !raw.empty() && (raw[0] == ' ' || raw[0] == '\t');
    std::string_view line = Trim(raw);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    auto bad = [&](const std::string& why) {
      return InvalidArgument(std::to_string(line_no) + ": " + why);
    };
    if (line[0] == '[') {
      if (line.back() != ']') return bad("a section header must end with ']'");
      section = std::string(Trim(line.substr(1, line.size() - 2)));
      if (section.empty()) return bad("empty section name");
      have_section = true;
      out[section];
      continue;
    }
    if (indented) continue;  // a nested setting (s3 = ...) we do not use
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) return bad("expected 'key = value'");
    if (!have_section) return bad("a setting before any [section]");
    std::string key(Trim(line.substr(0, eq)));
    if (key.empty()) return bad("empty key");
    std::transform(key.begin(), key.end(), key.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    out[section][key] = std::string(Trim(line.substr(eq + 1)));
  }
  return out;
}

Status LoadAwsCredentials(S3Options* o, const std::string& home) {
  CredentialsFromEnvironment(o);
  bool env_keys = !o->creds.access_key.empty();
  bool env_region =
      !Env("AWS_REGION").empty() || !Env("AWS_DEFAULT_REGION").empty();
  std::string profile = Env("AWS_PROFILE");
  bool named = !profile.empty();
  if (!named) profile = "default";
  std::string creds_path = Env("AWS_SHARED_CREDENTIALS_FILE");
  if (creds_path.empty()) creds_path = home + "/.aws/credentials";
  std::string config_path = Env("AWS_CONFIG_FILE");
  if (config_path.empty()) config_path = home + "/.aws/config";
  SV_ASSIGN_OR_RETURN(IniSections creds, ReadIni(creds_path));
  SV_ASSIGN_OR_RETURN(IniSections config, ReadIni(config_path));
  const std::map<std::string, std::string>* c = nullptr;
  const std::map<std::string, std::string>* f = nullptr;
  if (auto it = creds.find(profile); it != creds.end()) c = &it->second;
  std::string config_section =
      profile == "default" ? "default" : "profile " + profile;
  if (auto it = config.find(config_section); it != config.end()) {
    f = &it->second;
  }
  if (named && c == nullptr && f == nullptr) {
    return NotFound("AWS_PROFILE is '" + profile + "', but neither " +
                    creds_path + " nor " + config_path + " has that profile");
  }
  auto get = [](const std::map<std::string, std::string>* m,
                const char* key) -> std::string {
    if (m == nullptr) return "";
    auto it = m->find(key);
    return it == m->end() ? "" : it->second;
  };
  if (!env_keys) {
    for (const auto* m : {c, f}) {
      if (!get(m, "aws_access_key_id").empty()) {
        o->creds.access_key = get(m, "aws_access_key_id");
        o->creds.secret_key = get(m, "aws_secret_access_key");
        o->creds.session_token = get(m, "aws_session_token");
        break;
      }
    }
  }
  if (!env_region && !get(f, "region").empty()) o->region = get(f, "region");
  return Status::Ok();
}

}  // namespace sealvol
