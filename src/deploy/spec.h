// The deployment spec (docs/deploy.md): which versions a deployment mounts
// where. A YAML file, `sealvol.yaml` by default:
//
//   deployment: chat-prod
//   volumes:
//     - ref: acme/llama3-8b:prod     # what the team follows
//       digest: sha256:…             # what replicas mount (sealvol lock)
//       path: /models/llama3
//
// ParseSpec checks everything that needs no registry and names the line and
// field of the first problem. ApplyPins rewrites digests in the text itself,
// line by line, so comments, order and spacing stay as the user wrote them.
//
// Thread safety: reentrant free functions over values.
#ifndef SEALVOL_DEPLOY_SPEC_H_
#define SEALVOL_DEPLOY_SPEC_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "format/names.h"
#include "hash/digest.h"

namespace sealvol {

// Where a key and its scalar value sit in the text (0-based, as yaml-cpp
// counts; messages add 1 to the line).
struct SpecPos {
  int key_line = -1;
  int key_col = -1;
  int value_line = -1;
  int value_col = -1;
  bool present() const { return key_line >= 0; }
};

struct SpecVolume {
  Ref ref;                       // the `ref` field, parsed
  std::optional<Digest> digest;  // the `digest` field, when given
  std::string path;              // absolute, normal form
  int line = 0;                  // 1-based line of the list item
  bool flow = false;             // written as `{ref: …, path: …}`
  SpecPos ref_pos, digest_pos;

  // What replicas mount: the digest field, else the ref's own digest;
  // nullopt while unpinned (a tag ref never locked).
  std::optional<Digest> Pinned() const { return digest ? digest : ref.digest; }
};

struct Spec {
  std::string file;      // as named in messages
  std::string text;      // as read, for rewriting
  std::string base_dir;  // relative paths start here
  std::string deployment;
  std::vector<SpecVolume> volumes;
};

inline constexpr size_t kMaxSpecBytes = 1 << 20;

// Parses and checks a spec. Relative paths are taken from `base_dir` (the
// spec's directory). InvalidArgument "FILE:LINE: FIELD: what is wrong" for:
// YAML syntax, unknown or repeated keys, a missing field, a bad name, ref,
// digest or path, a digest that contradicts a digest ref, and two volumes
// on one path or one inside another.
Result<Spec> ParseSpec(std::string_view text, const std::string& file,
                       const std::string& base_dir);

// Reads and parses the spec at `path`.
Result<Spec> LoadSpec(const std::string& path);

// Pins volume `index` of `spec` to `digest`: replaces
// the value of its `digest` line, or inserts one under `ref`, or, for a ref
// written as `volume@sha256:…` without a digest field, rewrites the ref.
// Everything else in the text stays byte for byte. The result is parsed
// again and must carry exactly the requested digests, or the edit fails.
struct PinEdit {
  size_t index = 0;
  Digest digest;
};
Result<std::string> ApplyPins(const Spec& spec,
                              const std::vector<PinEdit>& edits);

}  // namespace sealvol

#endif  // SEALVOL_DEPLOY_SPEC_H_
