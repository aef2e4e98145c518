#include "store/local_blob_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <memory>

#include "base/file.h"

namespace sealvol {
namespace {

constexpr char kHex[] = "0123456789abcdef";

template <typename Fn>
Status ForEachDirEntry(const std::string& dir, Fn fn) {
  std::unique_ptr<DIR, int (*)(DIR*)> d(::opendir(dir.c_str()), ::closedir);
  if (!d) {
    if (errno == ENOENT) return Status::Ok();
    return ErrnoStatus(errno, "open directory " + dir);
  }
  while (dirent* e = ::readdir(d.get())) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    fn(name);
  }
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<LocalBlobStore>> LocalBlobStore::Open(
    const std::string& root, uint64_t batch_bytes) {
  std::string r = root;
  while (r.size() > 1 && r.back() == '/') r.pop_back();
  std::string base = r + "/blobs/sha256";
  for (int i = 0; i < 256; ++i) {
    std::string sub = base + "/" + kHex[i >> 4] + kHex[i & 15];
    struct stat st;
    if (::stat(sub.c_str(), &st) == 0) continue;
    SV_RETURN_IF_ERROR(MakeDirs(sub));
  }
  return std::unique_ptr<LocalBlobStore>(new LocalBlobStore(r, batch_bytes));
}

LocalBlobStore::~LocalBlobStore() { batch_.Abandon(); }

std::string LocalBlobStore::PathFor(const Digest& digest) const {
  std::string hex = digest.Hex();
  return root_ + "/blobs/sha256/" + hex.substr(0, 2) + "/" + hex;
}

Result<bool> LocalBlobStore::Put(const Digest& digest,
                                 std::string_view envelope) {
  std::string path = PathFor(digest);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (pending_.count(digest)) return false;
  }
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) return false;
  std::string tmp = TempPathFor(path);
  UniqueFd fd(
      ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444));
  if (!fd.valid()) {
    return ErrnoStatus(errno,
                       "store blob " + digest.ToString() + ": create " + tmp);
  }
  Status s = WriteAll(fd.get(), envelope, tmp);
  // Start writeback now so the batch's sync has little left to flush.
  if (s.ok()) ::sync_file_range(fd.get(), 0, 0, SYNC_FILE_RANGE_WRITE);
  if (s.ok() && ::close(fd.Release()) != 0)
    s = ErrnoStatus(errno, "close " + tmp);
  if (!s.ok()) {
    ::unlink(tmp.c_str());
    return s.WithContext("store blob " + digest.ToString());
  }
  bool full;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!pending_.emplace(digest, tmp).second) {  // another thread won
      ::unlink(tmp.c_str());
      return false;
    }
    batch_.Add(tmp, path, AtomicMode::kNoReplace);
    pending_bytes_ += envelope.size();
    full = pending_bytes_ >= batch_bytes_;
  }
  if (full) {
    // One thread commits the full batch; the others carry on writing.
    std::unique_lock<std::mutex> sync_lock(sync_mu_, std::try_to_lock);
    if (sync_lock.owns_lock()) SV_RETURN_IF_ERROR(CommitBatch());
  }
  return true;
}

Status LocalBlobStore::Sync() {
  std::lock_guard<std::mutex> sync_lock(sync_mu_);
  return CommitBatch();
}

Status LocalBlobStore::CommitBatch() {
  RenameBatch batch;
  std::vector<Digest> digests;
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::swap(batch, batch_);
    for (const auto& [d, tmp] : pending_) digests.push_back(d);
    pending_bytes_ = 0;
  }
  Status s = batch.Commit(root_ + "/blobs");
  {
    // Renamed (or removed on failure): look them up under their final names.
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& d : digests) {
      auto it = pending_.find(d);
      if (it != pending_.end()) pending_.erase(it);
    }
  }
  return s.WithContext("sync store " + root_);
}

Result<std::string> LocalBlobStore::Get(const Digest& digest) {
  std::string path = PathFor(digest);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pending_.find(digest);
    if (it != pending_.end()) path = it->second;
  }
  auto data = ReadFile(path, kMaxEnvelopeSize);
  if (!data && data.error().code() == StatusCode::kNotFound &&
      path != PathFor(digest)) {
    // Its batch was committed while we looked: it has its final name now.
    data = ReadFile(PathFor(digest), kMaxEnvelopeSize);
  }
  if (!data && data.error().code() == StatusCode::kNotFound) {
    return NotFound("blob " + digest.ToString() + " is not in the store");
  }
  if (!data) {
    return data.error().WithContext("read blob " + digest.ToString());
  }
  return data;
}

Result<bool> LocalBlobStore::Has(const Digest& digest) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (pending_.count(digest)) return true;
  }
  struct stat st;
  if (::stat(PathFor(digest).c_str(), &st) == 0) return true;
  if (errno == ENOENT) return false;
  return ErrnoStatus(errno, "stat blob " + digest.ToString());
}

Status LocalBlobStore::Keep(const Digest& digest) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (pending_.count(digest)) return Status::Ok();  // new: mtime is now
  }
  if (::utimensat(AT_FDCWD, PathFor(digest).c_str(), nullptr, 0) == 0) {
    return Status::Ok();
  }
  return ErrnoStatus(errno, "touch blob " + digest.ToString());
}

Status LocalBlobStore::Delete(const Digest& digest) {
  SV_RETURN_IF_ERROR(Sync());  // a pending copy would otherwise reappear
  if (::unlink(PathFor(digest).c_str()) == 0 || errno == ENOENT) {
    return Status::Ok();
  }
  return ErrnoStatus(errno, "delete blob " + digest.ToString());
}

Status LocalBlobStore::List(const std::function<void(const BlobInfo&)>& fn) {
  SV_RETURN_IF_ERROR(Sync());
  for (int i = 0; i < 256; ++i) {
    std::string sub = root_ + "/blobs/sha256/" + kHex[i >> 4] + kHex[i & 15];
    SV_RETURN_IF_ERROR(ForEachDirEntry(sub, [&](const std::string& name) {
      auto d = Digest::ParseHex(name);
      if (!d) return;  // temp files and strays are not blobs
      struct stat st;
      if (::stat((sub + "/" + name).c_str(), &st) != 0) return;
      fn(BlobInfo{*d, static_cast<uint64_t>(st.st_size), st.st_mtime});
    }));
  }
  return Status::Ok();
}

Result<uint64_t> LocalBlobStore::CollectTemp(int64_t min_age_seconds) {
  uint64_t removed = 0;
  int64_t now = ::time(nullptr);
  for (int i = 0; i < 256; ++i) {
    std::string sub = root_ + "/blobs/sha256/" + kHex[i >> 4] + kHex[i & 15];
    SV_RETURN_IF_ERROR(ForEachDirEntry(sub, [&](const std::string& name) {
      if (name.rfind(".tmp-", 0) != 0) return;
      std::string path = sub + "/" + name;
      struct stat st;
      if (::stat(path.c_str(), &st) == 0 &&
          now - st.st_mtime >= min_age_seconds && ::unlink(path.c_str()) == 0) {
        ++removed;
      }
    }));
  }
  return removed;
}

}  // namespace sealvol
