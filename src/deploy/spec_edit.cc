// ApplyPins (spec.h): the line-based rewrite of a spec's digests.
#include <algorithm>

#include "deploy/spec.h"

namespace sealvol {
namespace {

std::vector<std::string> SplitLines(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    lines.emplace_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

// Replaces the scalar value of the key at `pos` on its line with `value`,
// keeping what follows it (a comment). The value must sit on the key's line.
Status SetValue(std::vector<std::string>* lines, const SpecPos& pos,
                const std::string& value, const std::string& what) {
  if (pos.key_line < 0 || pos.key_line >= static_cast<int>(lines->size())) {
    return FailedPrecondition("spec edit: no line for " + what);
  }
  std::string& line = (*lines)[pos.key_line];
  size_t colon = line.find(':', static_cast<size_t>(pos.key_col));
  if (colon == std::string::npos) {
    return InvalidArgument("cannot rewrite " + what + " at line " +
                           std::to_string(pos.key_line + 1) +
                           ": write it as 'key: value' on one line");
  }
  size_t begin = colon + 1;
  while (begin < line.size() && line[begin] == ' ') ++begin;
  size_t end = begin;
  if (pos.value_line == pos.key_line && begin < line.size() &&
      (line[begin] == '"' || line[begin] == '\'')) {
    end = line.find(line[begin], begin + 1);
    if (end == std::string::npos) {
      return InvalidArgument("cannot rewrite " + what + " at line " +
                             std::to_string(pos.key_line + 1) +
                             ": its quoted value continues on the next line");
    }
    ++end;
  } else if (pos.value_line == pos.key_line) {
    while (end < line.size() && line[end] != ' ' && line[end] != '\t' &&
           line[end] != ',' && line[end] != '}') {
      ++end;
    }
  } else if (pos.value_line >= 0 && pos.value_line != pos.key_line &&
             begin < line.size() && line[begin] != '#') {
    return InvalidArgument("cannot rewrite " + what + " at line " +
                           std::to_string(pos.key_line + 1) +
                           ": put its value on the key's line");
  }
  // An empty value keeps the spacing before its comment.
  std::string rest = line.substr(end == begin ? colon + 1 : end);
  line = line.substr(0, colon + 1) + " " + value +
         (rest.empty() || rest[0] == ' ' || rest[0] == ',' || rest[0] == '}'
              ? rest
              : " " + rest);
  return Status::Ok();
}

}  // namespace

Result<std::string> ApplyPins(const Spec& spec,
                              const std::vector<PinEdit>& edits) {
  const std::string& text = spec.text;
  std::vector<std::string> lines = SplitLines(text);
  // Insertions shift later lines: apply edits from the bottom up.
  std::vector<PinEdit> order = edits;
  std::sort(order.begin(), order.end(), [](const PinEdit& a, const PinEdit& b) {
    return a.index > b.index;
  });
  for (const PinEdit& e : order) {
    if (e.index >= spec.volumes.size())
      return FailedPrecondition("spec edit: no volume");
    const SpecVolume& v = spec.volumes[e.index];
    std::string what = "volumes[" + std::to_string(e.index) + "]";
    if (v.flow) {
      return InvalidArgument(spec.file + ":" + std::to_string(v.line) + ": " +
                             what +
                             ": written in flow style ({...}); write it as a "
                             "block mapping so sealvol can pin it");
    }
    if (v.ref.digest && !v.digest) {
      Ref pinned = v.ref;
      pinned.digest = e.digest;
      SV_RETURN_IF_ERROR(
          SetValue(&lines, v.ref_pos, pinned.ToString(), what + ".ref"));
      continue;
    }
    if (v.ref.digest) {
      Ref pinned = v.ref;
      pinned.digest = e.digest;
      SV_RETURN_IF_ERROR(
          SetValue(&lines, v.ref_pos, pinned.ToString(), what + ".ref"));
    }
    if (v.digest_pos.present()) {
      SV_RETURN_IF_ERROR(SetValue(&lines, v.digest_pos, e.digest.ToString(),
                                  what + ".digest"));
    } else {
      std::string indent(static_cast<size_t>(v.ref_pos.key_col), ' ');
      lines.insert(lines.begin() + v.ref_pos.key_line + 1,
                   indent + "digest: " + e.digest.ToString());
    }
  }
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  if (!text.empty() && text.back() != '\n' && !out.empty()) out.pop_back();
  // The edit must mean exactly what was asked, and nothing else.
  SV_ASSIGN_OR_RETURN(Spec again, ParseSpec(out, spec.file, spec.base_dir));
  bool same = again.deployment == spec.deployment &&
              again.volumes.size() == spec.volumes.size();
  for (size_t i = 0; same && i < again.volumes.size(); ++i) {
    std::optional<Digest> want = spec.volumes[i].Pinned();
    for (const PinEdit& e : edits) {
      if (e.index == i) want = e.digest;
    }
    same = again.volumes[i].Pinned() == want &&
           again.volumes[i].path == spec.volumes[i].path &&
           again.volumes[i].ref.volume == spec.volumes[i].ref.volume;
  }
  if (!same) {
    return FailedPrecondition(
        "rewriting " + spec.file +
        " would change more than its digests; edit it by hand");
  }
  return out;
}

}  // namespace sealvol
