#include "sources/s3_source.h"

#include <cstdlib>

#include "base/base64.h"
#include "sources/aws_config.h"
#include "sources/source_util.h"

namespace sealvol {

using sources_internal::Env;

Result<S3Options> S3OptionsFor(const SourceSpec& spec, const S3Flags& flags,
                               const std::string& home) {
  S3Options o;
  o.anonymous = flags.no_sign;
  o.retry_for = flags.retry_for;
  if (!o.anonymous) SV_RETURN_IF_ERROR(LoadAwsCredentials(&o, home));
  if (spec.scheme == "r2") {
    o.endpoint = "https://" + spec.account + ".r2.cloudflarestorage.com";
    o.region = "auto";
    o.path_style = true;
  } else if (spec.scheme == "cw") {
    o.endpoint = "https://cwobject.com";
    o.path_style = false;
  } else {
    std::string env = Env("AWS_ENDPOINT_URL_S3");
    if (env.empty()) env = Env("AWS_ENDPOINT_URL");
    if (!env.empty()) {
      o.endpoint = env;
      o.path_style = true;
    } else {
      o.endpoint = "https://s3." + o.region + ".amazonaws.com";
      o.path_style = false;
    }
  }
  if (!flags.endpoint.empty()) {
    o.endpoint = flags.endpoint;
    if (spec.scheme == "s3") o.path_style = true;
  }
  if (!flags.region.empty()) o.region = flags.region;
  if (flags.addressing == "path") {
    o.path_style = true;
  } else if (flags.addressing == "virtual") {
    o.path_style = false;
  } else if (!flags.addressing.empty()) {
    return InvalidArgument("--addressing is 'path' or 'virtual', not '" +
                           flags.addressing + "'");
  }
  if (o.endpoint.rfind("http://", 0) != 0 &&
      o.endpoint.rfind("https://", 0) != 0) {
    return InvalidArgument("the endpoint '" + o.endpoint +
                           "' must start with http:// or https://");
  }
  if (!o.anonymous && o.creds.access_key.empty()) {
    return PermissionDenied(
        "no credentials for " + spec.Uri() +
        ": set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE "
        "with ~/.aws/credentials, or use --no-sign for a public bucket");
  }
  return o;
}

S3Source::S3Source(SourceSpec spec, S3Options options)
    : spec_(std::move(spec)), client_(std::move(options), spec_.bucket) {}

Result<std::vector<RemoteEntry>> S3Source::List() {
  SV_ASSIGN_OR_RETURN(std::vector<S3Object> objects,
                      client_.List(spec_.prefix));
  std::vector<RemoteEntry> out;
  for (auto& o : objects) {
    SV_ASSIGN_OR_RETURN(RemoteEntry * e, sources_internal::AddListed(
                                             "listing " + Uri(), spec_.prefix,
                                             o.key, o.size, o.etag, &out));
    if (e == nullptr) continue;
    // A multipart object's checksum is a checksum of part checksums
    // ("…-N"): only a full-object one is the file's SHA-256.
    if (!o.checksum_sha256.empty() &&
        o.checksum_sha256.find('-') == std::string::npos) {
      auto raw = Base64Decode(o.checksum_sha256);
      if (raw && raw->size() == 32) {
        e->stated_sha256 =
            Digest::FromBytes(reinterpret_cast<const uint8_t*>(raw->data()));
      }
    }
  }
  return out;
}

Result<std::string> S3Source::ReadRange(const RemoteEntry& e, uint64_t offset,
                                        uint64_t length) {
  return client_.GetRange(e.locator, offset, length, e.identity);
}

}  // namespace sealvol
