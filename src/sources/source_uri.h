// Source URIs for `sealvol sync`:
//   s3://BUCKET[/PREFIX]              any S3-compatible store
//   r2://ACCOUNT/BUCKET[/PREFIX]      Cloudflare R2
//   cw://BUCKET[/PREFIX]              CoreWeave AI Object Storage
//   gs://BUCKET[/PREFIX]              Google Cloud Storage
//   az://ACCOUNT/CONTAINER[/PREFIX]   Azure Blob Storage
//   hf://ORG/NAME[@REVISION]          a Hugging Face model repo
//   hf://datasets/ORG/NAME[@REVISION] a dataset repo (also spaces/)
//   file:///DIR or a path             a local directory
// A prefix names a folder: `s3://b/models/llama` syncs the keys under
// `models/llama/`, and paths in the version are relative to it.
//
// Thread safety: reentrant functions.
#ifndef SEALVOL_SOURCES_SOURCE_URI_H_
#define SEALVOL_SOURCES_SOURCE_URI_H_

#include <string>
#include <string_view>

#include "base/status.h"

namespace sealvol {

enum class SourceKind { kLocal, kS3, kGcs, kAzure, kHuggingFace };

struct SourceSpec {
  SourceKind kind = SourceKind::kLocal;
  std::string scheme;     // file, s3, r2, cw, gs, az, hf
  std::string account;    // r2: account id; az: storage account
  std::string bucket;     // bucket, or az container
  std::string prefix;     // "" or ending in '/'
  std::string repo;       // hf: ORG/NAME
  std::string repo_type;  // hf: models, datasets or spaces
  std::string revision;   // hf: branch, tag or commit; default "main"
  std::string path;       // local directory

  // The canonical URI (what annotations record); parses back to this.
  std::string Uri() const;
  bool operator==(const SourceSpec&) const = default;
};

// InvalidArgument with an example of the right form for anything else.
Result<SourceSpec> ParseSourceUri(std::string_view uri);

}  // namespace sealvol

#endif  // SEALVOL_SOURCES_SOURCE_URI_H_
