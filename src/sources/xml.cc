#include "sources/xml.h"

#include <cstdlib>

namespace sealvol {

// XML text with the five predefined entities and numeric references
// decoded. nullopt on a malformed reference.
std::optional<std::string> XmlText(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out += s[i];
      continue;
    }
    size_t semi = s.find(';', i);
    if (semi == std::string_view::npos || semi - i > 10) return std::nullopt;
    std::string_view ent = s.substr(i + 1, semi - i - 1);
    if (ent == "amp")
      out += '&';
    else if (ent == "lt")
      out += '<';
    else if (ent == "gt")
      out += '>';
    else if (ent == "quot")
      out += '"';
    else if (ent == "apos")
      out += '\'';
    else if (ent.size() > 1 && ent[0] == '#') {
      bool hex = ent[1] == 'x';
      std::string digits(ent.substr(hex ? 2 : 1));
      if (digits.empty()) return std::nullopt;
      char* end = nullptr;
      unsigned long cp = std::strtoul(digits.c_str(), &end, hex ? 16 : 10);
      if (*end != '\0' || cp == 0 || cp > 0x10FFFF) return std::nullopt;
      if (cp < 0x80) {
        out += static_cast<char>(cp);
      } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
      } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
      } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
      }
    } else {
      return std::nullopt;
    }
    i = semi;
  }
  return out;
}

// The text of the first <tag>…</tag> in `s` (nullopt when absent).
std::optional<std::string_view> XmlElement(std::string_view s,
                                           std::string_view tag) {
  std::string open = "<" + std::string(tag) + ">";
  std::string close = "</" + std::string(tag) + ">";
  size_t a = s.find(open);
  if (a == std::string_view::npos) return std::nullopt;
  a += open.size();
  size_t b = s.find(close, a);
  if (b == std::string_view::npos) return std::nullopt;
  return s.substr(a, b - a);
}

std::optional<std::vector<std::string_view>> XmlElements(std::string_view s,
                                                         std::string_view tag) {
  std::string open = "<" + std::string(tag) + ">";
  std::string close = "</" + std::string(tag) + ">";
  std::vector<std::string_view> out;
  for (size_t pos = 0;;) {
    size_t a = s.find(open, pos);
    if (a == std::string_view::npos) return out;
    a += open.size();
    size_t b = s.find(close, a);
    if (b == std::string_view::npos) return std::nullopt;
    out.push_back(s.substr(a, b - a));
    pos = b + close.size();
  }
}

}  // namespace sealvol
