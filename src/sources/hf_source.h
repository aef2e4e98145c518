// HfSource: a Hugging Face hub repo at one revision as a RemoteSource
// (hf://ORG/NAME[@REVISION], datasets/ and spaces/ too), through the hub's
// public HTTP API:
//   GET /api/{models|datasets|spaces}/{repo}/revision/{rev}   -> commit sha
//   GET /api/{type}/{repo}/tree/{sha}?recursive=true          (Link: next)
//   GET [/{datasets|spaces}]/{repo}/resolve/{sha}/{path}      (Range)
// The revision is resolved to a commit first and everything is read at that
// commit, so a branch that moves mid-sync cannot mix two trees.
//
// LFS files carry their SHA-256 (the LFS oid): it is both their identity
// and the hash the bytes must match. Other files are identified by their
// git blob id.
//
// Safety: the token (HF_TOKEN) is sent to the hub endpoint only. Downloads
// that redirect (the hub sends LFS files to a CDN host) are followed by
// hand, without the token on any other origin; redirects to non-HTTP
// schemes, and to hosts that are or resolve to link-local or cloud metadata
// addresses, are refused.
//
// Thread safety: ReadRange may be called from many threads.
#ifndef SEALVOL_SOURCES_HF_SOURCE_H_
#define SEALVOL_SOURCES_HF_SOURCE_H_

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "client/http_client.h"
#include "publish/remote_source.h"
#include "sources/source_uri.h"

namespace sealvol {

struct HfOptions {
  std::string endpoint = "https://huggingface.co";  // HF_ENDPOINT
  std::string token;                                // HF_TOKEN
  std::chrono::milliseconds retry_for{15000};
};

// HF_ENDPOINT, and the token from HF_TOKEN, HUGGING_FACE_HUB_TOKEN, or the
// file HF_TOKEN_PATH (default $HF_HOME/token, ~/.cache/huggingface/token).
HfOptions HfOptionsFromEnvironment(const std::string& home);

struct HfTreeEntry {
  std::string type;  // "file" or "directory"
  std::string path;
  uint64_t size = 0;
  std::string oid;      // git blob id
  std::string lfs_oid;  // SHA-256 hex, LFS files only
};

// One page of the tree listing (a JSON array). Corruption on anything else.
Result<std::vector<HfTreeEntry>> ParseHfTree(std::string_view json);

// The rel="next" URL of a Link header, if any.
std::optional<std::string> LinkNext(std::string_view link);

// True when `host` (a name or literal IP, without port) is, or resolves to,
// an address no download should be redirected to: link-local (169.254/16,
// fe80::/10) or a cloud metadata address.
bool IsForbiddenRedirectHost(const std::string& host);

class HfSource : public RemoteSource {
 public:
  HfSource(SourceSpec spec, HfOptions options);
  std::string Uri() const override;
  std::string Revision() const override { return sha_; }
  std::string IdentityScope() const override;
  Result<std::vector<RemoteEntry>> List() override;
  Result<std::string> ReadRange(const RemoteEntry& e, uint64_t offset,
                                uint64_t length) override;

 private:
  Status ErrorFrom(const HttpResponse& r, const std::string& what) const;
  // A client for an origin other than the hub's (no token), shared.
  HttpClient* ClientFor(const std::string& origin);

  SourceSpec spec_;
  HfOptions options_;
  std::string sha_;  // the resolved commit, set by List
  std::unique_ptr<HttpClient> hub_;
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<HttpClient>> others_;  // GUARDED_BY
};

}  // namespace sealvol

#endif  // SEALVOL_SOURCES_HF_SOURCE_H_
