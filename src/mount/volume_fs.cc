#include "mount/volume_fs.h"

#include <algorithm>
#include <cerrno>

#include "base/status.h"
#include "chunk/chunker.h"
#include "store/blob_reader.h"

namespace sealvol {
namespace {

// Reads that land within this distance of where the last one ended count as
// sequential: the kernel's own readahead sends requests slightly out of
// order from several threads.
constexpr uint64_t kSequentialSlack = 4ull << 20;

// Hydration (--prefetch all): fetches in flight, and their bytes at most.
constexpr unsigned kHydrateThreads = 3;
constexpr uint64_t kHydrateBytesInFlight = 16ull << 20;

}  // namespace

VolumeFs::VolumeFs(VolumeTree tree, ChunkSource* source, FsOptions options)
    : tree_(std::move(tree)),
      source_(source),
      options_(options),
      layout_mus_(new std::mutex[tree_.node_count()]),
      layouts_(tree_.node_count()) {}

VolumeFs::~VolumeFs() {
  stop_.store(true);
  if (hydrator_.joinable()) hydrator_.join();
}

struct stat VolumeFs::StatOf(const TreeNode& node) const {
  struct stat st = {};
  st.st_ino = node.ino;
  st.st_mode = node.mode();
  st.st_nlink = node.type == EntryType::kDir ? 2 + node.subdirs : 1;
  st.st_uid = options_.uid;
  st.st_gid = options_.gid;
  st.st_size = static_cast<off_t>(node.size());
  st.st_blocks = static_cast<blkcnt_t>((node.size() + 511) / 512);
  st.st_blksize = 1 << 20;
  st.st_mtim.tv_sec = options_.mtime;
  st.st_ctim.tv_sec = options_.mtime;
  st.st_atim.tv_sec = options_.mtime;
  return st;
}

Result<struct stat> VolumeFs::GetAttr(uint64_t ino) const {
  const TreeNode* n = tree_.Get(ino);
  if (n == nullptr) return NotFound("no inode " + std::to_string(ino));
  return StatOf(*n);
}

Result<struct stat> VolumeFs::Lookup(uint64_t parent,
                                     std::string_view name) const {
  const TreeNode* n = tree_.Lookup(parent, name);
  if (n == nullptr) return NotFound(std::string(name));
  return StatOf(*n);
}

Result<std::string> VolumeFs::ReadLink(uint64_t ino) const {
  const TreeNode* n = tree_.Get(ino);
  if (n == nullptr || n->type != EntryType::kSymlink) {
    return InvalidArgument("not a symlink");
  }
  return n->entry->target;
}

Result<std::shared_ptr<const FileLayout>> VolumeFs::Layout(
    const TreeNode& node) {
  std::lock_guard lock(layout_mus_[node.ino - 1]);
  auto& slot = layouts_[node.ino - 1];
  if (slot) return slot;
  const ManifestEntry& e = *node.entry;
  auto layout = std::make_shared<FileLayout>();
  if (e.size > 0 && !e.chunks) {
    layout->chunks.push_back({e.sha256, static_cast<uint32_t>(e.size)});
  } else if (e.chunks) {
    auto bytes = source_->Get(*e.chunks, std::nullopt, ChunkIndexMaxBytes(e));
    if (!bytes) {
      return bytes.error().WithContext("chunk index of '" + e.path + "'");
    }
    SV_ASSIGN_OR_RETURN(layout->chunks, ParseFileChunks(e, **bytes));
  }
  uint64_t at = 0;
  for (const ChunkRef& c : layout->chunks) {
    layout->starts.push_back(at);
    at += c.length;
  }
  slot = std::move(layout);
  return slot;
}

Result<std::unique_ptr<OpenFile>> VolumeFs::Open(uint64_t ino) {
  const TreeNode* n = tree_.Get(ino);
  if (n == nullptr) return NotFound("no inode " + std::to_string(ino));
  if (n->type != EntryType::kFile) return InvalidArgument("not a file");
  SV_ASSIGN_OR_RETURN(auto layout, Layout(*n));
  return std::unique_ptr<OpenFile>(new OpenFile(n, std::move(layout)));
}

Result<ReadReply> VolumeFs::Read(OpenFile& file, uint64_t offset, size_t size) {
  const FileLayout& layout = *file.layout_;
  uint64_t file_size = file.node_->entry->size;
  ReadReply reply;
  if (offset >= file_size || size == 0) return reply;
  uint64_t end = std::min<uint64_t>(file_size, offset + size);
  // Counted while this read runs: hydration waits for it.
  active_reads_.fetch_add(1);
  struct Done {
    std::atomic<int>& n;
    ~Done() { n.fetch_sub(1); }
  } done{active_reads_};
  size_t i = static_cast<size_t>(
      std::upper_bound(layout.starts.begin(), layout.starts.end(), offset) -
      layout.starts.begin() - 1);
  if (options_.prefetch != Prefetch::kNone) ReadAhead(file, offset, size, i);
  for (uint64_t at = offset; at < end; ++i) {
    auto chunk = source_->Get(layout.chunks[i]);
    if (!chunk) {
      return chunk.error().WithContext(
          "read of '" + file.node_->entry->path + "' at offset " +
          std::to_string(at) + ": chunk " + std::to_string(i) + " (" +
          layout.chunks[i].digest.ToString() + ")");
    }
    uint64_t in_chunk = at - layout.starts[i];
    size_t n = static_cast<size_t>(
        std::min<uint64_t>((*chunk)->size() - in_chunk, end - at));
    reply.iov.push_back({const_cast<char*>((*chunk)->data() + in_chunk), n});
    reply.pins.push_back(std::move(*chunk));
    reply.bytes += n;
    at += n;
  }
  return reply;
}

void VolumeFs::ReadAhead(OpenFile& file, uint64_t offset, size_t size,
                         size_t chunk) {
  const FileLayout& layout = *file.layout_;
  size_t from, to;
  {
    std::lock_guard lock(file.mu_);
    uint64_t expected = file.next_offset_;
    bool sequential = offset + kSequentialSlack >= expected &&
                      offset <= expected + kSequentialSlack;
    if (sequential) {
      file.window_ =
          std::clamp<uint32_t>(file.window_ * 2, 2, options_.max_window_chunks);
    } else {
      file.window_ = 0;
      file.prefetched_to_ = 0;
    }
    file.next_offset_ = std::max(file.next_offset_, offset + size);
    if (!sequential) file.next_offset_ = offset + size;
    from = std::max(chunk + 1, file.prefetched_to_);
    to = std::min(layout.chunks.size(), chunk + 1 + file.window_);
    if (to > from) file.prefetched_to_ = to;
  }
  for (size_t k = from; k < to; ++k) source_->Prefetch(layout.chunks[k]);
}

void VolumeFs::StartHydration() {
  if (options_.prefetch != Prefetch::kAll) {
    hydration_done_.store(true);
    return;
  }
  hydrator_ = std::thread([this] { Hydrate(); });
}

void VolumeFs::Hydrate() {
  // A few fetches in flight (a remote store's latency hides behind the
  // others), bounded by bytes.
  ThreadPool pool(kHydrateThreads);
  ByteBudget budget(kHydrateBytesInFlight);
  for (const TreeNode& node : tree_.nodes()) {
    if (stop_.load()) break;
    if (node.type != EntryType::kFile) continue;
    auto layout = Layout(node);
    if (!layout) continue;  // a reader will meet and report the error
    for (const ChunkRef& c : (*layout)->chunks) {
      // Reads come first: wait while any is being served.
      while (active_reads_.load() > 0 && !stop_.load()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
      if (stop_.load()) break;
      budget.Acquire(c.length);
      pool.Submit([this, c, &budget] {
        if (source_->Hydrate(c)) hydrated_bytes_.fetch_add(c.length);
        budget.Release(c.length);
      });
    }
  }
  pool.Wait();
  if (!stop_.load()) hydration_done_.store(true);
}

}  // namespace sealvol
