// Range operations on working-tree files that work on chunks rather than bytes:
// zeroing a range (whole chunks become holes), copying a range (whole chunks
// are shared by reference, so copying a large file costs metadata only) and
// finding where data and holes begin (lseek's SEEK_DATA and SEEK_HOLE).
#include <algorithm>
#include <optional>
#include <vector>

#include "store/file_chunks.h"

namespace vexfs {

using internal::ChunkLength;
using internal::InodeRecord;
using internal::kChunkSize;
using internal::LoadChunk;
using internal::LoadRegular;

namespace {

// One call copies at most this much: a shared chunk is one record, a copied
// byte is a byte, and the caller (copy_file_range's loop) asks again.
constexpr uint64_t kMaxSharedPerCall = uint64_t{1} << 30;
constexpr uint64_t kMaxBytesPerCall = uint64_t{16} << 20;

}  // namespace

Status TreeEditor::ZeroRange(uint64_t ino, uint64_t offset, uint64_t length) {
  VEXFS_ASSIGN_OR_RETURN(InodeRecord rec, LoadRegular(scope_, ino));
  if (offset >= rec.size || length == 0) return Status::Ok();
  uint64_t end = offset + std::min(length, rec.size - offset);
  // Holes need no work: only stored chunks can hold bytes to zero.
  VEXFS_ASSIGN_OR_RETURN(auto chunks, scope_->ListChunks(ino));
  for (const auto& [index, id] : chunks) {
    uint64_t start = index * kChunkSize;
    uint64_t stop = start + ChunkLength(rec.size, index);
    if (stop <= offset || start >= end) continue;
    uint64_t from = std::max(offset, start), to = std::min(end, stop);
    if (from == start && to == stop) {
      VEXFS_RETURN_IF_ERROR(scope_->SetChunk(ino, index, std::nullopt));
      continue;
    }
    VEXFS_ASSIGN_OR_RETURN(std::string bytes, LoadChunk(scope_, ino, index, stop - start));
    std::fill(bytes.begin() + static_cast<ptrdiff_t>(from - start),
              bytes.begin() + static_cast<ptrdiff_t>(to - start), '\0');
    VEXFS_RETURN_IF_ERROR(internal::StoreChunk(scope_, ino, index, bytes));
  }
  return internal::SaveChanged(scope_, ino, &rec);
}

Result<uint64_t> TreeEditor::CopyRange(uint64_t src, uint64_t src_offset, uint64_t dst,
                                       uint64_t dst_offset, uint64_t length) {
  VEXFS_ASSIGN_OR_RETURN(InodeRecord src_rec, LoadRegular(scope_, src));
  VEXFS_ASSIGN_OR_RETURN(InodeRecord dst_rec, LoadRegular(scope_, dst));
  if (src_offset >= src_rec.size || length == 0) return uint64_t{0};
  uint64_t n = std::min(length, src_rec.size - src_offset);
  if (dst_offset > kMaxFileSize || n > kMaxFileSize - dst_offset) {
    return Status::FileTooLarge("copy would take inode " + std::to_string(dst) +
                                " past the 1 TiB file size limit");
  }
  if (src == dst && src_offset < dst_offset + n && dst_offset < src_offset + n) {
    return Status::InvalidArgument("the source and destination ranges overlap");
  }
  bool aligned = src_offset % kChunkSize == 0 && dst_offset % kChunkSize == 0;
  if (!aligned) {  // chunk k of the source would straddle two destination chunks
    n = std::min(n, kMaxBytesPerCall);
    VEXFS_ASSIGN_OR_RETURN(std::string bytes, Read(src, src_offset, n));
    VEXFS_RETURN_IF_ERROR(Write(dst, dst_offset, bytes));
    return n;
  }
  n = std::min(n, kMaxSharedPerCall);
  uint64_t new_size = std::max(dst_rec.size, dst_offset + n);
  uint64_t first_src = src_offset / kChunkSize, first_dst = dst_offset / kChunkSize;
  // Whole chunks move by reference; so does a short last chunk of the source
  // that lands as the destination's last chunk, at the same canonical length.
  uint64_t whole = n / kChunkSize;
  uint64_t tail = n % kChunkSize;
  bool tail_shared = tail > 0 && src_offset + n == src_rec.size && dst_offset + n == new_size;
  // Taken before the destination is resized: in a copy within one file that
  // grows it, resizing re-cuts the source's own last chunk.
  std::vector<std::optional<ObjectId>> shared(whole + (tail_shared ? 1 : 0));
  for (uint64_t i = 0; i < shared.size(); ++i) {
    VEXFS_ASSIGN_OR_RETURN(shared[i], scope_->GetChunk(src, first_src + i));
  }
  VEXFS_RETURN_IF_ERROR(internal::ResizeChunks(scope_, dst, dst_rec.size, new_size));
  for (uint64_t i = 0; i < shared.size(); ++i) {
    VEXFS_RETURN_IF_ERROR(scope_->SetChunk(dst, first_dst + i, shared[i]));
  }
  dst_rec.size = new_size;
  VEXFS_RETURN_IF_ERROR(internal::SaveChanged(scope_, dst, &dst_rec));
  if (tail > 0 && !tail_shared) {
    uint64_t done = whole * kChunkSize;
    VEXFS_ASSIGN_OR_RETURN(std::string bytes, Read(src, src_offset + done, tail));
    VEXFS_RETURN_IF_ERROR(Write(dst, dst_offset + done, bytes));
  }
  return n;
}

Result<std::optional<uint64_t>> TreeEditor::SeekData(uint64_t ino, uint64_t offset) {
  VEXFS_ASSIGN_OR_RETURN(InodeRecord rec, LoadRegular(scope_, ino));
  if (offset >= rec.size) return std::optional<uint64_t>();
  VEXFS_ASSIGN_OR_RETURN(auto index, scope_->FirstStoredChunk(ino, offset / kChunkSize));
  if (!index) return std::optional<uint64_t>();  // holes up to the end
  return std::optional<uint64_t>(std::max(offset, *index * kChunkSize));
}

Result<std::optional<uint64_t>> TreeEditor::SeekHole(uint64_t ino, uint64_t offset) {
  VEXFS_ASSIGN_OR_RETURN(InodeRecord rec, LoadRegular(scope_, ino));
  if (offset >= rec.size) return std::optional<uint64_t>();
  VEXFS_ASSIGN_OR_RETURN(uint64_t index, scope_->FirstMissingChunk(ino, offset / kChunkSize));
  // Past the last chunk this is the end of the file, the hole every file ends in.
  uint64_t start = std::min(rec.size, index * kChunkSize);
  return std::optional<uint64_t>(std::max(offset, start));
}

}  // namespace vexfs
