// The AWS shared credentials and config files, as the AWS CLI reads them:
// `~/.aws/credentials` (or AWS_SHARED_CREDENTIALS_FILE) with `[NAME]`
// sections, and `~/.aws/config` (or AWS_CONFIG_FILE) with `[default]` and
// `[profile NAME]` sections. The profile is AWS_PROFILE, else "default".
//
// Precedence, as the AWS CLI: keys in the environment, then the
// credentials file, then the config file; region from AWS_REGION, then
// AWS_DEFAULT_REGION, then the profile's `region` in the config file.
//
// Thread safety: reentrant functions.
#ifndef SEALVOL_SOURCES_AWS_CONFIG_H_
#define SEALVOL_SOURCES_AWS_CONFIG_H_

#include <map>
#include <string>
#include <string_view>

#include "base/status.h"
#include "sources/s3_client.h"

namespace sealvol {

// section name -> key -> value. Keys are lowercased; `#` and `;` start
// comments; nested (indented) keys such as `s3 =\n  max_concurrent_requests
// = 4` are skipped. InvalidArgument naming the line for anything else that
// is not `[section]`, `key = value`, a comment or a blank line.
using IniSections = std::map<std::string, std::map<std::string, std::string>>;
Result<IniSections> ParseIni(std::string_view text);

// Fills credentials and region into `options` from the environment and the
// files (`home` is where `.aws` lives). Missing files are not an error; a
// named profile (AWS_PROFILE) that no file has is. Values already found
// in the environment win.
Status LoadAwsCredentials(S3Options* options, const std::string& home);

}  // namespace sealvol

#endif  // SEALVOL_SOURCES_AWS_CONFIG_H_
