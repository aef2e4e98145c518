#include "publish/chunk_feed.h"

#include <memory>

#include "format/chunk_index.h"
#include "store/blob_reader.h"

namespace sealvol::publish_internal {

void BuildRun::Fail(Status s) {
  std::lock_guard<std::mutex> lock(mu);
  if (first_error.ok()) first_error = std::move(s);
}

bool BuildRun::failed() {
  std::lock_guard<std::mutex> lock(mu);
  return !first_error.ok();
}

Result<bool> BuildRun::Store(const Digest& d, std::string_view plain) {
  if (store == nullptr) return false;
  SV_ASSIGN_OR_RETURN(bool has, store->Has(d));
  if (has) {
    // Refresh its age so a concurrent GC's grace period covers this run.
    SV_RETURN_IF_ERROR(store->Keep(d));
    return false;
  }
  std::string env = EncodeEnvelope(plain, compress);
  SV_ASSIGN_OR_RETURN(bool written, store->Put(d, env));
  if (written) stored_bytes += env.size();
  return written;
}

void BuildRun::StoreChunk(std::string data, ChunkRef* slot) {
  uint64_t len = data.size();
  slot->digest = Sha256::Of(data);
  slot->length = static_cast<uint32_t>(len);
  if (!failed()) {
    auto isnew = Store(slot->digest, data);
    if (!isnew) {
      Fail(isnew.error());
    } else if (*isnew) {
      new_bytes += len;
      ++new_chunks;
      if (progress) progress->new_bytes += len;
    } else {
      reused_bytes += len;
      if (progress) progress->reused_bytes += len;
    }
  }
  budget.Release(len);
}

void BuildRun::CountReused(uint64_t bytes) {
  reused_bytes += bytes;
  if (progress) {
    progress->read_bytes += bytes;
    progress->reused_bytes += bytes;
  }
}

void ChunkFeed::Submit() {
  ChunkRef* slot = &out_->chunks.emplace_back();
  auto data = std::make_shared<std::string>(std::move(pending_));
  pending_ = std::string();
  BuildRun* run = &run_;
  pool_.Submit([run, slot, data] { run->StoreChunk(std::move(*data), slot); });
}

void ChunkFeed::Feed(const char* data, size_t n) {
  file_hash_.Update(data, n);
  size_t pos = 0;
  while (pos < n) {
    bool cut;
    size_t take = chunker_.Next(reinterpret_cast<const uint8_t*>(data) + pos,
                                n - pos, &cut);
    if (pending_.empty()) {
      // Reserve the budget before the bytes are copied in: this bounds the
      // data held in pending and queued chunks.
      run_.budget.Acquire(kChunkParamsV1.max_size);
      pending_.reserve(kChunkParamsV1.max_size);
    }
    pending_.append(data + pos, take);
    pos += take;
    if (cut) {
      run_.budget.Release(kChunkParamsV1.max_size - pending_.size());
      Submit();
    }
  }
}

void ChunkFeed::Finish() {
  if (!pending_.empty()) {
    run_.budget.Release(kChunkParamsV1.max_size - pending_.size());
    Submit();
  }
  out_->sha256 = file_hash_.Finish();
}

Status FinishFileEntry(BuildRun& run, ChunkedFile& fc, ManifestEntry* e) {
  e->sha256 = fc.sha256;
  e->chunks.reset();
  if (fc.chunks.size() == 1 && fc.chunks[0].digest != fc.sha256) {
    return Corruption("internal: one-chunk file '" + e->path +
                      "' hashed two ways");
  }
  if (fc.chunks.size() > 1) {
    ChunkIndex index{{fc.chunks.begin(), fc.chunks.end()}};
    std::string bytes = SerializeChunkIndex(index);
    Digest d = Sha256::Of(bytes);
    SV_ASSIGN_OR_RETURN(bool isnew, run.Store(d, bytes));
    (void)isnew;
    e->chunks = d;
  }
  return Status::Ok();
}

Status FinishVersion(BuildRun& run, BuiltVersion* out) {
  SV_ASSIGN_OR_RETURN(out->manifest_bytes, SerializeManifest(out->manifest));
  out->digest = Sha256::Of(out->manifest_bytes);
  out->new_bytes = run.new_bytes;
  out->reused_bytes = run.reused_bytes;
  out->stored_bytes = run.stored_bytes;
  out->new_chunks = run.new_chunks;
  return Status::Ok();
}

bool ReuseChunks(BlobStore& store, const ManifestEntry& remembered,
                 ChunkedFile* fc) {
  auto chunks = FileChunks(store, remembered);
  if (!chunks) return false;
  for (const auto& c : *chunks) {
    if (!store.Keep(c.digest).ok()) return false;
  }
  if (remembered.chunks && !store.Keep(*remembered.chunks).ok()) return false;
  fc->sha256 = remembered.sha256;
  fc->chunks.assign(chunks->begin(), chunks->end());
  return true;
}

}  // namespace sealvol::publish_internal
