#include "format/manifest.h"

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "format/names.h"
#include "hash/sha256.h"

namespace sealvol {
namespace {

using nlohmann::json;

const Digest& EmptyDigest() {
  static const Digest d = Sha256::Of("");
  return d;
}

Status BadEntry(const ManifestEntry& e, std::string_view why) {
  return InvalidArgument("manifest entry '" + e.path +
                         "': " + std::string(why));
}

Status ValidateFile(const ManifestEntry& e) {
  if (e.size > kMaxFileSize) return BadEntry(e, "size is larger than 1 PiB");
  if (e.size == 0 && e.sha256 != EmptyDigest()) {
    return BadEntry(e, "empty file with a sha256 that is not the empty one");
  }
  if (e.chunks && e.size <= kChunkParamsV1.min_size) {
    return BadEntry(e, "has a chunk index but is too small for two chunks");
  }
  if (!e.chunks && e.size > kChunkParamsV1.max_size) {
    return BadEntry(e, "larger than one chunk but has no chunk index");
  }
  return Status::Ok();
}

json ChunkingJson() {
  return json{{"algorithm", "fastcdc"},
              {"avg", kChunkParamsV1.avg_size},
              {"max", kChunkParamsV1.max_size},
              {"min", kChunkParamsV1.min_size}};
}

Result<ManifestEntry> EntryFromJson(const json& j) {
  if (!j.is_object()) return Corruption("manifest entry is not an object");
  ManifestEntry e;
  auto path = j.find("path");
  if (path == j.end() || !path->is_string()) {
    return Corruption("manifest entry without a string 'path'");
  }
  e.path = path->get<std::string>();
  auto bad = [&](std::string_view why) {
    return Corruption("manifest entry '" + e.path + "': " + std::string(why));
  };
  if (j.contains("symlink")) {
    if (j.size() != 2 || !j["symlink"].is_string()) {
      return bad("a symlink has exactly 'path' and a string 'symlink'");
    }
    e.type = EntryType::kSymlink;
    e.target = j["symlink"].get<std::string>();
    return e;
  }
  if (j.contains("type")) {
    if (j.size() != 2 || j["type"] != "dir") {
      return bad("a directory has exactly 'path' and 'type':'dir'");
    }
    e.type = EntryType::kDir;
    return e;
  }
  size_t want = j.contains("chunks") ? 5 : 4;
  if (j.size() != want || !j.contains("mode") || !j.contains("sha256") ||
      !j.contains("size")) {
    return bad("a file has exactly mode, path, sha256, size (and chunks)");
  }
  const json& mode = j["mode"];
  if (mode == "644")
    e.executable = false;
  else if (mode == "755")
    e.executable = true;
  else
    return bad("mode must be \"644\" or \"755\"");
  if (!j["size"].is_number_unsigned())
    return bad("size is not an unsigned integer");
  e.size = j["size"].get<uint64_t>();
  if (!j["sha256"].is_string()) return bad("sha256 is not a string");
  auto sha = Digest::ParseHex(j["sha256"].get<std::string>());
  if (!sha) return bad(sha.error().message());
  e.sha256 = *sha;
  if (want == 5) {
    if (!j["chunks"].is_string()) return bad("chunks is not a string");
    auto idx = Digest::Parse(j["chunks"].get<std::string>());
    if (!idx) return bad(idx.error().message());
    e.chunks = *idx;
  }
  return e;
}

// The canonical form, read directly: a cursor that accepts exactly the bytes
// SerializeManifest writes for a valid manifest and gives up (nullopt) at
// the first byte that differs, leaving the error message to the reference
// parser. Four times faster than parsing into a json document and
// re-serializing it to compare (BENCHMARKS.md), which matters for a
// 10,000-file manifest read before every mount.
class CanonicalReader {
 public:
  explicit CanonicalReader(std::string_view in) : in_(in) {}

  std::optional<Manifest> Read() {
    static const std::string kHead =
        R"({"chunking":{"algorithm":"fastcdc","avg":)" +
        std::to_string(kChunkParamsV1.avg_size) + R"(,"max":)" +
        std::to_string(kChunkParamsV1.max_size) + R"(,"min":)" +
        std::to_string(kChunkParamsV1.min_size) + R"(},"entries":[)";
    static const std::string kTail =
        R"(],"schema":")" + std::string(kManifestSchema) + R"("})";
    if (!Lit(kHead)) return std::nullopt;
    Manifest m;
    bool first = true;
    while (!Peek(']')) {
      if (!first && !Lit(",")) return std::nullopt;
      first = false;
      ManifestEntry e;
      if (!Entry(&e)) return std::nullopt;
      m.entries.push_back(std::move(e));
      if (m.entries.size() > kMaxManifestEntries) return std::nullopt;
    }
    if (!Lit(kTail) || pos_ != in_.size()) return std::nullopt;
    return m;
  }

 private:
  bool Peek(char c) const { return pos_ < in_.size() && in_[pos_] == c; }
  bool Lit(std::string_view lit) {
    if (in_.substr(pos_, lit.size()) != lit) return false;
    pos_ += lit.size();
    return true;
  }
  // A string whose only escape is \" and that has no control character:
  // all a valid manifest's strings can hold (names.h forbids control
  // characters and backslashes in paths and targets).
  bool Str(std::string* out) {
    if (!Lit("\"")) return false;
    out->clear();
    for (;;) {
      size_t stop = in_.find_first_of("\"\\", pos_);
      if (stop == std::string_view::npos) return false;
      out->append(in_.substr(pos_, stop - pos_));
      pos_ = stop;
      if (in_[pos_] == '"') {
        ++pos_;
        break;
      }
      if (!Lit("\\\"")) return false;
      out->push_back('"');
    }
    for (unsigned char c : *out) {
      if (c < 0x20) return false;
    }
    return true;
  }
  // An unsigned integer as JSON writes it: no sign, no leading zero.
  bool Uint(uint64_t* out) {
    size_t start = pos_;
    uint64_t v = 0;
    while (pos_ < in_.size() && in_[pos_] >= '0' && in_[pos_] <= '9') {
      auto d = static_cast<uint64_t>(in_[pos_] - '0');
      if (v > (UINT64_MAX - d) / 10) return false;
      v = v * 10 + d;
      ++pos_;
    }
    size_t n = pos_ - start;
    if (n == 0 || (n > 1 && in_[start] == '0')) return false;
    *out = v;
    return true;
  }
  bool Entry(ManifestEntry* e) {
    std::string s;
    if (Lit(R"({"path":)")) {
      if (!Str(&e->path)) return false;
      if (Lit(R"(,"symlink":)")) {
        e->type = EntryType::kSymlink;
        return Str(&e->target) && Lit("}");
      }
      e->type = EntryType::kDir;
      return Lit(R"(,"type":"dir"})");
    }
    e->type = EntryType::kFile;
    if (Lit(R"({"chunks":)")) {
      if (!Str(&s)) return false;
      auto d = Digest::Parse(s);
      if (!d) return false;
      e->chunks = *d;
      if (!Lit(R"(,"mode":)")) return false;
    } else if (!Lit(R"({"mode":)")) {
      return false;
    }
    if (Lit(R"("755")")) {
      e->executable = true;
    } else if (!Lit(R"("644")")) {
      return false;
    }
    if (!Lit(R"(,"path":)") || !Str(&e->path) || !Lit(R"(,"sha256":)") ||
        !Str(&s)) {
      return false;
    }
    auto sha = Digest::ParseHex(s);
    if (!sha) return false;
    e->sha256 = *sha;
    return Lit(R"(,"size":)") && Uint(&e->size) && Lit("}");
  }

  std::string_view in_;
  size_t pos_ = 0;
};

}  // namespace

uint64_t Manifest::TotalBytes() const {
  uint64_t n = 0;
  for (const auto& e : entries) n += e.type == EntryType::kFile ? e.size : 0;
  return n;
}

uint64_t Manifest::FileCount() const {
  return std::count_if(entries.begin(), entries.end(), [](const auto& e) {
    return e.type == EntryType::kFile;
  });
}

const ManifestEntry* Manifest::Find(std::string_view path) const {
  auto it = std::lower_bound(
      entries.begin(), entries.end(), path,
      [](const ManifestEntry& e, std::string_view p) { return e.path < p; });
  return it != entries.end() && it->path == path ? &*it : nullptr;
}

Status ValidateManifest(const Manifest& m) {
  if (m.entries.size() > kMaxManifestEntries) {
    return InvalidArgument("manifest has " + std::to_string(m.entries.size()) +
                           " entries, more than the limit of " +
                           std::to_string(kMaxManifestEntries));
  }
  // Paths that may not have anything beneath them: files, symlinks, and the
  // empty directories (which are listed only because they are empty).
  std::set<std::string_view> leaves;
  const ManifestEntry* prev = nullptr;
  for (const auto& e : m.entries) {
    SV_RETURN_IF_ERROR(ValidatePath(e.path));
    if (prev != nullptr && !(prev->path < e.path)) {
      return BadEntry(e, prev->path == e.path
                             ? "listed twice"
                             : "out of order (entries sort bytewise by path)");
    }
    for (size_t slash = e.path.find('/'); slash != std::string::npos;
         slash = e.path.find('/', slash + 1)) {
      if (leaves.count(std::string_view(e.path).substr(0, slash))) {
        return BadEntry(e, "lies under '" + e.path.substr(0, slash) +
                               "', which is a file, symlink or empty dir");
      }
    }
    leaves.insert(e.path);
    if (e.type == EntryType::kFile) {
      SV_RETURN_IF_ERROR(ValidateFile(e));
    } else if (e.type == EntryType::kSymlink) {
      SV_RETURN_IF_ERROR(ValidateSymlinkTarget(e.path, e.target));
    }
    prev = &e;
  }
  return Status::Ok();
}

Result<std::string> SerializeManifest(const Manifest& m) {
  SV_RETURN_IF_ERROR(ValidateManifest(m));
  json entries = json::array();
  for (const auto& e : m.entries) {
    json j;
    j["path"] = e.path;
    switch (e.type) {
      case EntryType::kSymlink:
        j["symlink"] = e.target;
        break;
      case EntryType::kDir:
        j["type"] = "dir";
        break;
      case EntryType::kFile:
        j["mode"] = e.executable ? "755" : "644";
        j["size"] = e.size;
        j["sha256"] = e.sha256.Hex();
        if (e.chunks) j["chunks"] = e.chunks->ToString();
        break;
    }
    entries.push_back(std::move(j));
  }
  json doc{{"chunking", ChunkingJson()},
           {"entries", std::move(entries)},
           {"schema", kManifestSchema}};
  return doc.dump();
}

Result<Manifest> ParseManifest(std::string_view bytes) {
  if (bytes.size() > kMaxManifestBytes) {
    return Corruption("manifest of " + std::to_string(bytes.size()) +
                      " bytes is over the 64 MiB limit");
  }
  if (auto m = CanonicalReader(bytes).Read(); m && ValidateManifest(*m).ok()) {
    return std::move(*m);
  }
  // Not canonical, or not valid: the reference parser says exactly why.
  return ParseManifestReference(bytes);
}

Result<Manifest> ParseManifestReference(std::string_view bytes) {
  if (bytes.size() > kMaxManifestBytes) {
    return Corruption("manifest of " + std::to_string(bytes.size()) +
                      " bytes is over the 64 MiB limit");
  }
  json doc;
  std::string again;
  try {
    doc = json::parse(bytes);
    again = doc.dump();
  } catch (const json::exception& e) {
    return Corruption(std::string("manifest is not valid JSON: ") + e.what());
  }
  // One byte string per tree: anything that does not re-serialize to itself
  // (spacing, key order, duplicate keys, escapes, number forms) is rejected.
  if (again != bytes) {
    return Corruption("manifest is not in canonical form");
  }
  if (!doc.is_object() || doc.size() != 3 || !doc.contains("schema") ||
      !doc.contains("chunking") || !doc.contains("entries")) {
    return Corruption("manifest must have exactly chunking, entries, schema");
  }
  if (doc["schema"] != kManifestSchema) {
    return Corruption("manifest schema is not " + std::string(kManifestSchema));
  }
  if (doc["chunking"] != ChunkingJson()) {
    return Corruption(
        "manifest chunking parameters are not fastcdc "
        "256KiB/1MiB/4MiB (format v1)");
  }
  const json& entries = doc["entries"];
  if (!entries.is_array()) return Corruption("manifest entries is not a list");
  if (entries.size() > kMaxManifestEntries) {
    return Corruption("manifest has too many entries");
  }
  Manifest m;
  m.entries.reserve(entries.size());
  for (const json& j : entries) {
    SV_ASSIGN_OR_RETURN(ManifestEntry e, EntryFromJson(j));
    m.entries.push_back(std::move(e));
  }
  Status s = ValidateManifest(m);
  if (!s.ok()) return Corruption(s.message());
  return m;
}

}  // namespace sealvol
