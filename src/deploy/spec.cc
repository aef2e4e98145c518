#include "deploy/spec.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <map>
#include <set>

#include "base/file.h"

namespace sealvol {
namespace {

// "FILE:LINE: FIELD: message" (LINE 1-based, omitted when unknown).
Status SpecError(const std::string& file, int line0, const std::string& field,
                 const std::string& msg) {
  std::string where = file;
  if (line0 >= 0) where += ":" + std::to_string(line0 + 1);
  return InvalidArgument(where + ": " + (field.empty() ? "" : field + ": ") +
                         msg);
}

// `path` made absolute (against `base`) and lexically normal.
std::string NormalPath(const std::string& base, const std::string& path) {
  std::string full = path.empty() || path[0] != '/' ? base + "/" + path : path;
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= full.size()) {
    size_t slash = full.find('/', start);
    if (slash == std::string::npos) slash = full.size();
    std::string c = full.substr(start, slash - start);
    if (c == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!c.empty() && c != ".") {
      parts.push_back(c);
    }
    start = slash + 1;
  }
  std::string out;
  for (const auto& p : parts) out += "/" + p;
  return out.empty() ? "/" : out;
}

bool Inside(const std::string& outer, const std::string& inner) {
  return inner.size() > outer.size() &&
         inner.compare(0, outer.size(), outer) == 0 &&
         inner[outer.size()] == '/';
}

class Parser {
 public:
  Parser(const std::string& file, const std::string& base)
      : file_(file), base_(base) {}

  Result<Spec> Parse(std::string_view text) {
    if (text.size() > kMaxSpecBytes) {
      return SpecError(file_, -1, "", "larger than 1 MiB; not a spec");
    }
    YAML::Node root;
    try {
      root = YAML::Load(std::string(text));
    } catch (const YAML::Exception& e) {
      return SpecError(file_, e.mark.line, "", "YAML: " + e.msg);
    }
    if (!root.IsMap()) {
      return SpecError(file_, Line(root), "",
                       "a spec is a mapping with 'deployment' and 'volumes'");
    }
    Spec spec;
    spec.file = file_;
    spec.text = std::string(text);
    spec.base_dir = base_;
    std::map<std::string, YAML::Node> top;
    SV_RETURN_IF_ERROR(
        Keys(root, "", {"deployment", "volumes"}, &top, nullptr));
    if (!top.count("deployment")) {
      return SpecError(file_, Line(root), "deployment", "missing");
    }
    SV_ASSIGN_OR_RETURN(spec.deployment,
                        Scalar(top["deployment"], "deployment"));
    if (Status s = ValidateDeploymentName(spec.deployment); !s.ok()) {
      return SpecError(file_, Line(top["deployment"]), "deployment",
                       s.message());
    }
    if (!top.count("volumes")) {
      return SpecError(file_, Line(root), "volumes", "missing");
    }
    const YAML::Node& vols = top["volumes"];
    if (!vols.IsSequence() || vols.size() == 0) {
      return SpecError(file_, Line(vols), "volumes",
                       "want a list of {ref, path} entries");
    }
    std::map<std::string, int> paths;  // path -> 1-based line
    for (size_t i = 0; i < vols.size(); ++i) {
      SV_ASSIGN_OR_RETURN(Parsed v, Volume(vols[i], i));
      for (const auto& [other, line] : paths) {
        if (other == v.path || Inside(other, v.path) || Inside(v.path, other)) {
          return SpecError(
              file_, v.path_line, Field(i, "path"),
              other == v.path
                  ? v.path + " is already used at line " + std::to_string(line)
                  : v.path + " and " + other + " (line " +
                        std::to_string(line) + ") lie one inside the other");
        }
      }
      paths[v.path] = v.path_line + 1;
      spec.volumes.push_back(std::move(v.volume));
    }
    return spec;
  }

 private:
  struct Parsed {
    SpecVolume volume;
    std::string path;
    int path_line = -1;
  };

  static int Line(const YAML::Node& n) { return n.Mark().line; }
  static std::string Field(size_t i, const std::string& key) {
    return "volumes[" + std::to_string(i) + "]" +
           (key.empty() ? "" : "." + key);
  }

  // The keys of map `n`: each must be in `allowed` and appear once.
  Status Keys(const YAML::Node& n, const std::string& field,
              const std::set<std::string>& allowed,
              std::map<std::string, YAML::Node>* out,
              std::map<std::string, SpecPos>* pos) {
    for (YAML::const_iterator it = n.begin(); it != n.end(); ++it) {
      // Copies: the iterator's pair is a temporary proxy.
      const YAML::Node k = (*it).first;
      const YAML::Node val = (*it).second;
      std::string prefix = field.empty() ? "" : field + ".";
      if (!k.IsScalar()) {
        return SpecError(file_, Line(k), field, "keys are plain words");
      }
      std::string key = k.Scalar();
      if (!allowed.count(key)) {
        std::string want;
        for (const auto& a : allowed) want += (want.empty() ? "" : ", ") + a;
        return SpecError(file_, Line(k), prefix + key,
                         "unknown key (want " + want + ")");
      }
      if (out->count(key)) {
        return SpecError(file_, Line(k), prefix + key,
                         "given twice (first at line " +
                             std::to_string(Line((*out)[key]) + 1) + ")");
      }
      (*out)[key] = val;
      if (pos != nullptr) {
        SpecPos p;
        p.key_line = k.Mark().line;
        p.key_col = k.Mark().column;
        p.value_line = val.Mark().line;
        p.value_col = val.Mark().column;
        (*pos)[key] = p;
      }
    }
    return Status::Ok();
  }

  Result<std::string> Scalar(const YAML::Node& n, const std::string& field) {
    if (!n.IsScalar() || n.Scalar().empty()) {
      return SpecError(file_, Line(n), field, "want a single value");
    }
    return n.Scalar();
  }

  Result<Parsed> Volume(const YAML::Node& n, size_t i) {
    if (!n.IsMap()) {
      return SpecError(file_, Line(n), Field(i, ""),
                       "want a mapping with ref, path and (once locked) "
                       "digest");
    }
    Parsed out;
    SpecVolume& v = out.volume;
    v.line = Line(n) + 1;
    v.flow = n.Style() == YAML::EmitterStyle::Flow;
    std::map<std::string, YAML::Node> f;
    std::map<std::string, SpecPos> pos;
    SV_RETURN_IF_ERROR(
        Keys(n, Field(i, ""), {"digest", "path", "ref"}, &f, &pos));
    for (const char* need : {"ref", "path"}) {
      if (!f.count(need)) {
        return SpecError(file_, Line(n), Field(i, need), "missing");
      }
    }
    SV_ASSIGN_OR_RETURN(std::string ref, Scalar(f["ref"], Field(i, "ref")));
    auto parsed = ParseRef(ref);
    if (!parsed) {
      return SpecError(file_, Line(f["ref"]), Field(i, "ref"),
                       parsed.error().message());
    }
    v.ref = *parsed;
    v.ref_pos = pos["ref"];
    if (f.count("digest") && !f["digest"].IsNull()) {
      SV_ASSIGN_OR_RETURN(std::string d,
                          Scalar(f["digest"], Field(i, "digest")));
      auto digest = Digest::Parse(d);
      if (!digest) {
        return SpecError(file_, Line(f["digest"]), Field(i, "digest"),
                         digest.error().message());
      }
      if (v.ref.digest && *v.ref.digest != *digest) {
        return SpecError(file_, Line(f["digest"]), Field(i, "digest"),
                         "differs from the digest in the ref (" +
                             v.ref.digest->ToString() + "); keep one");
      }
      v.digest = *digest;
    }
    if (f.count("digest")) v.digest_pos = pos["digest"];
    SV_ASSIGN_OR_RETURN(std::string path, Scalar(f["path"], Field(i, "path")));
    v.path = NormalPath(base_, path);
    out.path_line = Line(f["path"]);
    if (Status s = ValidateMountPath(v.path); !s.ok()) {
      return SpecError(file_, out.path_line, Field(i, "path"), s.message());
    }
    out.path = v.path;
    return out;
  }

  std::string file_;
  std::string base_;
};

}  // namespace

Result<Spec> ParseSpec(std::string_view text, const std::string& file,
                       const std::string& base_dir) {
  return Parser(file, base_dir).Parse(text);
}

Result<Spec> LoadSpec(const std::string& path) {
  SV_ASSIGN_OR_RETURN(std::string text, ReadFile(path, kMaxSpecBytes));
  char real[PATH_MAX];
  std::string base = ".";
  if (realpath(path.c_str(), real) != nullptr) {
    base = real;
    base = base.substr(0, base.rfind('/'));
    if (base.empty()) base = "/";
  }
  return ParseSpec(text, path, base);
}

}  // namespace sealvol
