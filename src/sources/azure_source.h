// AzureSource: a prefix of an Azure Blob Storage container as a
// RemoteSource (az://ACCOUNT/CONTAINER/PREFIX), through the Blob REST API:
// List Blobs (paged by NextMarker) and Get Blob with a range, conditional
// on the listed ETag. Each blob under the prefix is a file; its ETag is its
// identity.
//
// Authorization, first found: a SAS token (appended to every URL), a
// bearer token, or Shared Key (HMAC-SHA256 over the canonical request with
// the base64 account key). The credentials come from
// AZURE_STORAGE_CONNECTION_STRING (AccountName, AccountKey, BlobEndpoint,
// SharedAccessSignature, DefaultEndpointsProtocol, EndpointSuffix), or from
// AZURE_STORAGE_KEY, AZURE_STORAGE_SAS_TOKEN and AZURE_STORAGE_BEARER_TOKEN.
// The endpoint is --endpoint, the connection string's BlobEndpoint, or
// https://ACCOUNT.blob.core.windows.net. An endpoint with a path (the
// emulator's http://127.0.0.1:10000/ACCOUNT) is kept as the URL prefix.
//
// Thread safety: ReadRange may be called from many threads.
#ifndef SEALVOL_SOURCES_AZURE_SOURCE_H_
#define SEALVOL_SOURCES_AZURE_SOURCE_H_

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "client/http_client.h"
#include "publish/remote_source.h"
#include "sources/source_uri.h"

namespace sealvol {

struct AzureOptions {
  std::string endpoint;  // scheme://host[:port][/path], no trailing slash
  std::string account;
  std::string key;     // base64 account key (Shared Key)
  std::string sas;     // query string without '?'
  std::string bearer;  // OAuth token
  std::chrono::milliseconds retry_for{15000};
};

// `name=value;…` pairs. InvalidArgument on a pair without '='.
Result<std::map<std::string, std::string>> ParseConnectionString(
    std::string_view s);

// Options for `spec` from the environment and --endpoint.
Result<AzureOptions> AzureOptionsFor(const SourceSpec& spec,
                                     const std::string& endpoint_flag);

// The Shared Key string to sign for one request (Blob service, version
// 2015-02-21 and later). `headers` hold every header sent (any case);
// `encoded_path` is the path as sent; `query` is decoded.
std::string SharedKeyStringToSign(
    const std::string& method,
    const std::map<std::string, std::string>& headers,
    const std::string& account, const std::string& encoded_path,
    const std::map<std::string, std::string>& query);

struct AzureBlob {
  std::string name;
  uint64_t size = 0;
  std::string etag;
};
struct AzureListPage {
  std::vector<AzureBlob> blobs;
  std::string next_marker;
};
// One List Blobs answer. Corruption on anything that is not one.
Result<AzureListPage> ParseListBlobs(std::string_view xml);

class AzureSource : public RemoteSource {
 public:
  AzureSource(SourceSpec spec, AzureOptions options);
  std::string Uri() const override { return spec_.Uri(); }
  Result<std::vector<RemoteEntry>> List() override;
  Result<std::string> ReadRange(const RemoteEntry& e, uint64_t offset,
                                uint64_t length) override;

 private:
  // `path` below the endpoint, encoded; `query` decoded.
  Result<HttpResponse> Send(const std::string& path,
                            const std::map<std::string, std::string>& query,
                            std::map<std::string, std::string> headers);
  Status ErrorFrom(const HttpResponse& r, const std::string& what) const;

  SourceSpec spec_;
  AzureOptions options_;
  std::string base_path_;  // the endpoint's path ("" or "/account")
  std::unique_ptr<HttpClient> http_;
};

}  // namespace sealvol

#endif  // SEALVOL_SOURCES_AZURE_SOURCE_H_
