#include "sources/source_uri.h"

#include <vector>

#include "format/names.h"

namespace sealvol {
namespace {

bool NameChars(std::string_view s, std::string_view extra) {
  if (s.empty() || s.size() > 255) return false;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || extra.find(c) != std::string_view::npos;
    if (!ok) return false;
  }
  return true;
}

std::vector<std::string_view> Split(std::string_view s, size_t max_parts) {
  std::vector<std::string_view> out;
  while (out.size() + 1 < max_parts) {
    size_t slash = s.find('/');
    if (slash == std::string_view::npos) break;
    out.push_back(s.substr(0, slash));
    s.remove_prefix(slash + 1);
  }
  out.push_back(s);
  return out;
}

// A key prefix: any UTF-8 without control characters; normalized to end
// with '/' unless empty.
Result<std::string> Prefix(std::string_view p, std::string_view uri) {
  if (!IsValidUtf8(p))
    return InvalidArgument("'" + std::string(uri) +
                           "': the prefix is not UTF-8");
  for (unsigned char c : p) {
    if (c < 0x20 || c == 0x7f) {
      return InvalidArgument("the prefix of '" + std::string(uri) +
                             "' has a control character");
    }
  }
  std::string out(p);
  while (!out.empty() && out.front() == '/') out.erase(0, 1);
  if (!out.empty() && out.back() != '/') out += '/';
  return out;
}

}  // namespace

std::string SourceSpec::Uri() const {
  switch (kind) {
    case SourceKind::kLocal:
      return "file://" + path;
    case SourceKind::kHuggingFace:
      return "hf://" + (repo_type == "models" ? "" : repo_type + "/") + repo +
             "@" + revision;
    case SourceKind::kAzure:
      return "az://" + account + "/" + bucket + "/" + prefix;
    default:
      return scheme + "://" + (account.empty() ? "" : account + "/") + bucket +
             "/" + prefix;
  }
}

Result<SourceSpec> ParseSourceUri(std::string_view uri) {
  SourceSpec s;
  size_t colon = uri.find("://");
  if (colon == std::string_view::npos) {
    if (uri.empty()) return InvalidArgument("empty source");
    s.path = std::string(uri);
    return s;
  }
  s.scheme = std::string(uri.substr(0, colon));
  std::string_view rest = uri.substr(colon + 3);
  std::string u(uri);
  auto bad = [&](const std::string& want) {
    return InvalidArgument("'" + u + "' is not a source; want " + want);
  };
  if (s.scheme == "file") {
    if (rest.empty() || rest[0] != '/') return bad("file:///ABSOLUTE/DIR");
    s.path = std::string(rest);
    return s;
  }
  if (s.scheme == "hf") {
    s.kind = SourceKind::kHuggingFace;
    s.repo_type = "models";
    std::string_view r = rest;
    for (std::string_view t : {"datasets/", "spaces/", "models/"}) {
      if (r.substr(0, t.size()) == t) {
        s.repo_type = std::string(t.substr(0, t.size() - 1));
        r.remove_prefix(t.size());
        break;
      }
    }
    size_t at = r.find('@');
    s.revision = "main";
    if (at != std::string_view::npos) {
      s.revision = std::string(r.substr(at + 1));
      r = r.substr(0, at);
      // Branch and tag names: git's rules, less what could break a URL.
      if (s.revision.empty() || s.revision.size() > 255 ||
          !NameChars(s.revision, "._-/") ||
          s.revision.find("..") != std::string::npos ||
          s.revision.front() == '/' || s.revision.back() == '/') {
        return bad("hf://ORG/NAME@REVISION with a branch, tag or commit");
      }
    }
    auto parts = Split(r, 3);
    if (parts.size() != 2 || !NameChars(parts[0], "._-") ||
        !NameChars(parts[1], "._-") ||
        parts[0].find("..") != std::string_view::npos ||
        parts[1].find("..") != std::string_view::npos) {
      return bad("hf://ORG/NAME[@REVISION] or hf://datasets/ORG/NAME");
    }
    s.repo = std::string(parts[0]) + "/" + std::string(parts[1]);
    return s;
  }
  bool two_level = s.scheme == "r2" || s.scheme == "az";
  if (s.scheme != "s3" && s.scheme != "gs" && s.scheme != "cw" && !two_level) {
    return bad(
        "hf://, s3://, r2://, cw://, gs://, az://, file:// or a directory");
  }
  auto parts = Split(rest, two_level ? 3 : 2);
  std::string form = s.scheme == "r2"   ? "r2://ACCOUNT/BUCKET[/PREFIX]"
                     : s.scheme == "az" ? "az://ACCOUNT/CONTAINER[/PREFIX]"
                                        : s.scheme + "://BUCKET[/PREFIX]";
  if (two_level) {
    if (parts.size() < 2 || !NameChars(parts[0], "-")) return bad(form);
    s.account = std::string(parts[0]);
    parts.erase(parts.begin());
  }
  if (!NameChars(parts[0], "._-")) return bad(form);
  s.bucket = std::string(parts[0]);
  SV_ASSIGN_OR_RETURN(s.prefix, Prefix(parts.size() > 1 ? parts[1] : "", uri));
  s.kind = s.scheme == "gs"   ? SourceKind::kGcs
           : s.scheme == "az" ? SourceKind::kAzure
                              : SourceKind::kS3;
  return s;
}

}  // namespace sealvol
