#include "store/s3_blob_store.h"

#include <atomic>
#include <ctime>
#include <mutex>
#include <thread>

namespace sealvol {

namespace {
constexpr std::string_view kBlobDir = "blobs/sha256/";
}  // namespace

Result<std::unique_ptr<S3BlobStore>> S3BlobStore::Open(const std::string& uri,
                                                       S3Options options,
                                                       int64_t refresh_after) {
  if (uri.rfind("s3://", 0) != 0) {
    return InvalidArgument("--blobs wants s3://BUCKET[/PREFIX], got '" + uri +
                           "'");
  }
  std::string rest = uri.substr(5);
  size_t slash = rest.find('/');
  std::string bucket = rest.substr(0, slash);
  std::string prefix = slash == std::string::npos ? "" : rest.substr(slash + 1);
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  if (bucket.empty() || prefix.find("//") != std::string::npos) {
    return InvalidArgument("bad bucket URI '" + uri +
                           "' (want s3://BUCKET[/PREFIX])");
  }
  std::unique_ptr<S3BlobStore> s(
      new S3BlobStore(std::move(options), bucket, prefix, refresh_after));
  // One small listing: the credentials, the bucket and the endpoint are
  // checked before anything is served.
  auto probe = s->client_.List(s->prefix_ + std::string(kBlobDir) + "00/", 1);
  if (!probe) {
    return probe.error().WithContext("blob store " + s->uri_);
  }
  return s;
}

S3BlobStore::S3BlobStore(S3Options options, std::string bucket,
                         std::string prefix, int64_t refresh_after)
    : client_(std::move(options), bucket),
      prefix_(prefix.empty() ? "" : prefix + "/"),
      uri_("s3://" + bucket + (prefix.empty() ? "" : "/" + prefix)),
      refresh_after_(refresh_after) {}

std::string S3BlobStore::Key(const Digest& d) const {
  std::string hex = d.Hex();
  return prefix_ + std::string(kBlobDir) + hex.substr(0, 2) + "/" + hex;
}

Result<bool> S3BlobStore::Put(const Digest& digest, std::string_view envelope) {
  return client_.PutIfAbsent(Key(digest), envelope);
}

Result<std::string> S3BlobStore::Get(const Digest& digest) {
  auto body = client_.Get(Key(digest));
  if (!body) {
    if (body.error().code() == StatusCode::kNotFound) {
      return NotFound("blob " + digest.ToString() + " is not in " + uri_);
    }
    return body.error();
  }
  if (body->size() > kMaxEnvelopeSize) {
    return Corruption("blob " + digest.ToString() + " in " + uri_ +
                      " is larger than any blob can be");
  }
  return body;
}

Result<bool> S3BlobStore::Has(const Digest& digest) {
  SV_ASSIGN_OR_RETURN(auto head, client_.Head(Key(digest)));
  return head.has_value();
}

Status S3BlobStore::Keep(const Digest& digest) {
  if (refresh_after_ > 0) {
    SV_ASSIGN_OR_RETURN(auto head, client_.Head(Key(digest)));
    if (!head) {
      return NotFound("blob " + digest.ToString() + " is not in " + uri_);
    }
    auto modified = ParseS3Time(head->last_modified);
    if (modified && ::time(nullptr) - *modified < refresh_after_) {
      return Status::Ok();  // young enough: no copy
    }
  }
  Status s = client_.Touch(Key(digest));
  if (s.code() == StatusCode::kNotFound) {
    return NotFound("blob " + digest.ToString() + " is not in " + uri_);
  }
  return s;
}

Status S3BlobStore::Delete(const Digest& digest) {
  return client_.Delete(Key(digest));
}

Status S3BlobStore::List(const std::function<void(const BlobInfo&)>& fn) {
  std::string dir = prefix_ + std::string(kBlobDir);
  SV_ASSIGN_OR_RETURN(std::vector<S3Object> objects, client_.List(dir));
  for (const S3Object& o : objects) {
    // Only `XX/<64 hex>` names are blobs; anything else under the prefix
    // (a stray upload, a folder marker) is not this store's and is left be.
    std::string_view name(o.key);
    name.remove_prefix(dir.size());
    if (name.size() != 3 + 64 || name[2] != '/') continue;
    auto d = Digest::ParseHex(name.substr(3));
    if (!d || name.substr(0, 2) != name.substr(3, 2)) continue;
    BlobInfo info;
    info.digest = *d;
    info.stored_size = o.size;
    auto t = ParseS3Time(o.last_modified);
    if (!t) {
      return Corruption("listing " + uri_ + ": bad LastModified '" +
                        o.last_modified + "' for " + o.key);
    }
    info.mtime = *t;
    fn(info);
  }
  return Status::Ok();
}

Result<std::vector<Digest>> S3BlobStore::Select(
    const std::vector<Digest>& digests,
    const std::function<Result<bool>(const Digest&)>& absent) {
  std::vector<char> chosen(digests.size(), 0);
  std::atomic<size_t> next{0};
  std::mutex mu;
  Status failure;
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < digests.size();) {
      auto r = absent(digests[i]);
      if (!r) {
        std::lock_guard<std::mutex> lock(mu);
        if (failure.ok()) failure = r.error();
        next = digests.size();  // the others stop too
        return;
      }
      chosen[i] = *r;
    }
  };
  std::vector<std::thread> threads;
  size_t n = std::min<size_t>(16, digests.size());
  for (size_t i = 1; i < n; ++i) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  if (!failure.ok()) return failure;
  std::vector<Digest> out;
  for (size_t i = 0; i < digests.size(); ++i) {
    if (chosen[i]) out.push_back(digests[i]);
  }
  return out;
}

Result<std::vector<Digest>> S3BlobStore::Missing(
    const std::vector<Digest>& digests) {
  return Select(digests, [this](const Digest& d) -> Result<bool> {
    SV_ASSIGN_OR_RETURN(bool has, Has(d));
    return !has;
  });
}

Result<std::vector<Digest>> S3BlobStore::KeepAll(
    const std::vector<Digest>& digests) {
  return Select(digests, [this](const Digest& d) -> Result<bool> {
    Status s = Keep(d);
    if (s.code() == StatusCode::kNotFound) return true;
    if (!s.ok()) return s;
    return false;
  });
}

std::string S3BlobStore::PresignGet(const Digest& digest,
                                    int64_t expires_seconds) const {
  return client_.PresignGet(Key(digest), expires_seconds, ::time(nullptr));
}

}  // namespace sealvol
