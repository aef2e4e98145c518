// The grammar of user-visible names (docs/format.md): volume names, tags,
// refs, and the relative paths and symlink targets a manifest may hold.
// Every name is checked here before it reaches a path, a URL or SQL.
//
// Thread safety: reentrant free functions.
#ifndef SEALVOL_FORMAT_NAMES_H_
#define SEALVOL_FORMAT_NAMES_H_

#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "hash/digest.h"

namespace sealvol {

inline constexpr size_t kMaxVolumeName = 255;
inline constexpr size_t kMaxPath = 4096;
inline constexpr size_t kMaxPathComponent = 255;

// `[a-z0-9]+([._-][a-z0-9]+)*` segments joined by '/', at most 255 chars.
Status ValidateVolumeName(std::string_view name);

// The namespace of a volume: its first '/'-separated segment ("acme" for
// "acme/llama3-8b", the whole name when it has no '/').
std::string VolumeNamespace(std::string_view volume);
// `[A-Za-z0-9_][A-Za-z0-9._-]{0,127}`.
Status ValidateTag(std::string_view tag);

// `volume:tag`, `volume@sha256:…`, or bare `volume` (= `volume:latest`).
struct Ref {
  std::string volume;
  std::string tag;               // empty when digest is set
  std::optional<Digest> digest;  // set for `volume@sha256:…`
  std::string ToString() const;
};
Result<Ref> ParseRef(std::string_view text);
// `volume[:tag]`, as publish takes it: a digest is not allowed.
Result<Ref> ParseTagRef(std::string_view text);

bool IsValidUtf8(std::string_view s);

// A deployment name: the volume-name grammar (`chat-prod`, `team/chat`).
Status ValidateDeploymentName(std::string_view name);

// A deployment's mount path: absolute, in normal form (no empty, '.' or
// '..' component, no trailing '/', not '/' itself), valid UTF-8, no control
// character, at most 4096 bytes.
Status ValidateMountPath(std::string_view path);

// A manifest path: relative, '/'-separated, valid UTF-8, no empty, '.' or
// '..' component, no control character, no backslash, ≤ 4096 bytes, each
// component ≤ 255 bytes.
Status ValidatePath(std::string_view path);

// A symlink target at `link_path` must be relative and in normal form: a run
// of '..' components, then names; no empty or '.' component; it must not
// climb above the volume root. With every link in this form, following links
// can never leave the volume.
Status ValidateSymlinkTarget(std::string_view link_path,
                             std::string_view target);

}  // namespace sealvol

#endif  // SEALVOL_FORMAT_NAMES_H_
