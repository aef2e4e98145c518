#include "format/names.h"

namespace sealvol {
namespace {

bool IsLowerAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

bool IsAlnum(char c) { return IsLowerAlnum(c) || (c >= 'A' && c <= 'Z'); }

std::string Quote(std::string_view s) {
  std::string out = "'";
  for (char c : s.substr(0, 300)) {
    auto u = static_cast<unsigned char>(c);
    out += (u < 0x20 || u == 0x7f) ? '?' : c;
  }
  return out + (s.size() > 300 ? "...'" : "'");
}

// One volume segment: [a-z0-9]+([._-][a-z0-9]+)*
bool ValidSegment(std::string_view s) {
  if (s.empty() || !IsLowerAlnum(s.front()) || !IsLowerAlnum(s.back())) {
    return false;
  }
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (IsLowerAlnum(c)) continue;
    if (c != '.' && c != '_' && c != '-') return false;
    if (!IsLowerAlnum(s[i + 1])) return false;  // separators never repeat
  }
  return true;
}

template <typename Fn>
bool ForEachComponent(std::string_view path, Fn fn) {
  size_t start = 0;
  for (;;) {
    size_t slash = path.find('/', start);
    std::string_view comp = path.substr(
        start, slash == std::string_view::npos ? path.npos : slash - start);
    if (!fn(comp)) return false;
    if (slash == std::string_view::npos) return true;
    start = slash + 1;
  }
}

}  // namespace

Status ValidateVolumeName(std::string_view name) {
  if (name.empty() || name.size() > kMaxVolumeName ||
      !ForEachComponent(name, ValidSegment)) {
    return InvalidArgument(
        "bad volume name " + Quote(name) +
        ": want lowercase segments like 'acme/llama3-8b' ([a-z0-9] words "
        "joined by '.', '_' or '-', segments joined by '/', at most 255 "
        "characters)");
  }
  return Status::Ok();
}

Status ValidateDeploymentName(std::string_view name) {
  if (name.empty() || name.size() > kMaxVolumeName ||
      !ForEachComponent(name, ValidSegment)) {
    return InvalidArgument(
        "bad deployment name " + Quote(name) +
        ": want lowercase words like 'chat-prod' ([a-z0-9] joined by '.', "
        "'_' or '-', optionally '/'-separated, at most 255 characters)");
  }
  return Status::Ok();
}

Status ValidateMountPath(std::string_view path) {
  auto bad = [&](std::string_view why) {
    return InvalidArgument("bad mount path " + Quote(path) + ": " +
                           std::string(why));
  };
  if (path.size() < 2 || path.front() != '/') {
    return bad("want an absolute path below '/'");
  }
  if (path.size() > kMaxPath) return bad("longer than 4096 bytes");
  for (char c : path) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) return bad("contains a control character");
  }
  if (!IsValidUtf8(path)) return bad("not valid UTF-8");
  bool normal = ForEachComponent(path.substr(1), [](std::string_view c) {
    return !c.empty() && c != "." && c != "..";
  });
  if (!normal) return bad("has an empty, '.' or '..' component");
  return Status::Ok();
}

Status ValidateTag(std::string_view tag) {
  bool ok =
      !tag.empty() && tag.size() <= 128 && (IsAlnum(tag[0]) || tag[0] == '_');
  for (size_t i = 1; ok && i < tag.size(); ++i) {
    char c = tag[i];
    ok = IsAlnum(c) || c == '_' || c == '.' || c == '-';
  }
  if (!ok) {
    return InvalidArgument("bad tag " + Quote(tag) +
                           ": want letters, digits, '_', '.', '-' (at most "
                           "128, not starting with '.' or '-')");
  }
  return Status::Ok();
}

std::string Ref::ToString() const {
  if (digest) return volume + "@" + digest->ToString();
  return volume + ":" + tag;
}

Result<Ref> ParseRef(std::string_view text) {
  Ref ref;
  size_t at = text.find('@');
  size_t colon = text.find(':');
  if (at != std::string_view::npos) {
    auto d = Digest::Parse(text.substr(at + 1));
    if (!d) return d.error().WithContext("ref " + Quote(text));
    ref.digest = *d;
    ref.volume = std::string(text.substr(0, at));
  } else if (colon != std::string_view::npos) {
    ref.volume = std::string(text.substr(0, colon));
    ref.tag = std::string(text.substr(colon + 1));
    SV_RETURN_IF_ERROR(ValidateTag(ref.tag));
  } else {
    ref.volume = std::string(text);
    ref.tag = "latest";
  }
  SV_RETURN_IF_ERROR(ValidateVolumeName(ref.volume));
  return ref;
}

Result<Ref> ParseTagRef(std::string_view text) {
  auto ref = ParseRef(text);
  if (ref && ref->digest) {
    return InvalidArgument("want VOLUME[:TAG] here, not a digest: " +
                           Quote(text));
  }
  return ref;
}

bool IsValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<uint8_t>(s[i]);
    size_t n;
    uint32_t cp;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xe0) == 0xc0) {
      n = 1;
      cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
      n = 2;
      cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
      n = 3;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + n >= s.size()) return false;  // truncated sequence
    for (size_t k = 1; k <= n; ++k) {
      auto cc = static_cast<uint8_t>(s[i + k]);
      if ((cc & 0xc0) != 0x80) return false;
      cp = cp << 6 | (cc & 0x3f);
    }
    // Overlong forms, surrogates and code points past U+10FFFF.
    if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) ||
        (n == 3 && cp < 0x10000) || cp > 0x10ffff ||
        (cp >= 0xd800 && cp <= 0xdfff)) {
      return false;
    }
    i += n + 1;
  }
  return true;
}

Status ValidatePath(std::string_view path) {
  auto bad = [&](std::string_view why) {
    return InvalidArgument("bad path " + Quote(path) + ": " + std::string(why));
  };
  if (path.empty()) return bad("empty");
  if (path.size() > kMaxPath) return bad("longer than 4096 bytes");
  if (path.front() == '/') return bad("absolute; paths are relative");
  for (char c : path) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) return bad("contains a control character");
    if (c == '\\') return bad("contains a backslash");
  }
  if (!IsValidUtf8(path)) return bad("not valid UTF-8");
  std::string_view why;
  bool ok = ForEachComponent(path, [&](std::string_view comp) {
    if (comp.empty())
      why = "has an empty component";
    else if (comp == "." || comp == "..")
      why = "has a '.' or '..' component";
    else if (comp.size() > kMaxPathComponent)
      why = "has a component over 255 bytes";
    return why.empty();
  });
  if (!ok) return bad(why);
  return Status::Ok();
}

Status ValidateSymlinkTarget(std::string_view link_path,
                             std::string_view target) {
  auto bad = [&](std::string_view why) {
    return InvalidArgument("symlink " + Quote(link_path) + " -> " +
                           Quote(target) + ": " + std::string(why));
  };
  if (target.empty()) return bad("empty target");
  if (target.size() > kMaxPath) return bad("target longer than 4096 bytes");
  if (target.front() == '/') return bad("absolute target leaves the volume");
  for (char c : target) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f || c == '\\') {
      return bad("target contains a control character or backslash");
    }
  }
  if (!IsValidUtf8(target)) return bad("target is not valid UTF-8");
  // Depth of the directory holding the link.
  long depth = 0;
  for (char c : link_path) depth += c == '/';
  bool seen_name = false;
  std::string_view why;
  ForEachComponent(target, [&](std::string_view comp) {
    if (comp.empty() || comp == ".") {
      why = "target is not in normal form (empty or '.' component)";
    } else if (comp == "..") {
      if (seen_name)
        why = "target is not in normal form ('..' after a name)";
      else if (--depth < 0)
        why = "target leaves the volume";
    } else {
      seen_name = true;
      ++depth;
    }
    return why.empty();
  });
  if (!why.empty()) return bad(why);
  return Status::Ok();
}

std::string VolumeNamespace(std::string_view volume) {
  return std::string(volume.substr(0, volume.find('/')));
}

}  // namespace sealvol
