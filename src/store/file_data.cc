// File contents of the working tree: fixed-size chunks addressed by content.
//
// Canonical form, so equal bytes always give equal manifests (and dedupe, and diff
// as unchanged): every chunk but the last holds exactly kChunkSize bytes, the last
// holds the remainder, and an all-zero chunk is stored as a hole (no reference).
#include <algorithm>

#include "store/store_impl.h"

#include "store/file_chunks.h"

namespace vexfs {

using internal::InodeRecord;
using internal::kChunkSize;

namespace internal {
namespace {

bool AllZero(std::string_view data) {
  return std::all_of(data.begin(), data.end(), [](char c) { return c == 0; });
}

}  // namespace

uint64_t ChunkLength(uint64_t size, uint64_t index) {
  uint64_t start = index * kChunkSize;
  return start >= size ? 0 : std::min(kChunkSize, size - start);
}

Result<InodeRecord> LoadRegular(internal::TxnScope* scope, uint64_t ino) {
  VEXFS_ASSIGN_OR_RETURN(InodeRecord rec, scope->LoadInode(ino));
  if (rec.type == FileType::kDirectory) {
    return Status::IsDirectory("inode " + std::to_string(ino) + " is a directory");
  }
  if (rec.type != FileType::kRegular) {
    return Status::InvalidArgument("inode " + std::to_string(ino) + " is not a regular file");
  }
  return rec;
}

Result<std::string> LoadChunk(internal::TxnScope* scope, uint64_t ino, uint64_t index,
                              uint64_t length) {
  VEXFS_ASSIGN_OR_RETURN(auto id, scope->GetChunk(ino, index));
  std::string bytes;
  if (id) {
    VEXFS_ASSIGN_OR_RETURN(bytes, scope->objects().Get(*id, internal::ObjectType::kChunk));
  }
  bytes.resize(length, '\0');
  return bytes;
}

Status StoreChunk(internal::TxnScope* scope, uint64_t ino, uint64_t index,
                  std::string_view bytes) {
  if (bytes.empty() || AllZero(bytes)) return scope->SetChunk(ino, index, std::nullopt);
  VEXFS_ASSIGN_OR_RETURN(ObjectId id, scope->objects().Put(internal::ObjectType::kChunk, bytes));
  return scope->SetChunk(ino, index, id);
}

Status StoreChunks(internal::TxnScope* scope, uint64_t ino,
                   const std::vector<std::pair<uint64_t, std::string_view>>& chunks) {
  // A few chunks go one by one: Put skips compressing those already stored.
  constexpr size_t kPrepareAtLeast = 8;
  if (chunks.size() < kPrepareAtLeast) {
    for (const auto& [index, bytes] : chunks) {
      VEXFS_RETURN_IF_ERROR(StoreChunk(scope, ino, index, bytes));
    }
    return Status::Ok();
  }
  std::vector<uint64_t> indexes;
  std::vector<std::string_view> payloads;
  for (const auto& [index, bytes] : chunks) {
    if (bytes.empty() || AllZero(bytes)) {
      VEXFS_RETURN_IF_ERROR(scope->SetChunk(ino, index, std::nullopt));  // a hole
    } else {
      indexes.push_back(index);
      payloads.push_back(bytes);
    }
  }
  std::vector<PreparedObject> prepared = PrepareObjects(ObjectType::kChunk, payloads);
  for (size_t i = 0; i < prepared.size(); ++i) {
    VEXFS_RETURN_IF_ERROR(scope->objects().PutPrepared(prepared[i]));
    VEXFS_RETURN_IF_ERROR(scope->SetChunk(ino, indexes[i], prepared[i].id));
  }
  return Status::Ok();
}

// Re-stores chunk `index` at its canonical length for a file of `new_size` bytes.
static Status RecutChunk(internal::TxnScope* scope, uint64_t ino, uint64_t index,
                         uint64_t new_size) {
  VEXFS_ASSIGN_OR_RETURN(std::string bytes,
                         LoadChunk(scope, ino, index, ChunkLength(new_size, index)));
  return StoreChunk(scope, ino, index, bytes);
}

Status ResizeChunks(internal::TxnScope* scope, uint64_t ino, uint64_t old_size,
                    uint64_t new_size) {
  if (new_size > old_size) {
    // The old last chunk, if partial, grows to its new canonical length.
    if (old_size % kChunkSize != 0) {
      return RecutChunk(scope, ino, old_size / kChunkSize, new_size);
    }
    return Status::Ok();
  }
  uint64_t keep = (new_size + kChunkSize - 1) / kChunkSize;
  VEXFS_ASSIGN_OR_RETURN(auto chunks, scope->ListChunks(ino));
  for (const auto& [index, id] : chunks) {
    if (index >= keep) VEXFS_RETURN_IF_ERROR(scope->SetChunk(ino, index, std::nullopt));
  }
  if (new_size % kChunkSize != 0) {
    return RecutChunk(scope, ino, new_size / kChunkSize, new_size);
  }
  return Status::Ok();
}

Status SaveChanged(internal::TxnScope* scope, uint64_t ino, InodeRecord* rec) {
  rec->mtime = rec->ctime = NowNs();
  VEXFS_RETURN_IF_ERROR(scope->SaveInode(ino, *rec));
  return scope->MarkDirty(ino);
}

// Holes and the zero tails of short chunks are served from here.
static const char kZeroChunk[kChunkSize] = {};

static void AppendZeros(TreeEditor::ByteViews* out, uint64_t n) {
  // A manifest may name a chunk size above kChunkSize: zeros go in pieces.
  for (; n > 0; n -= std::min(n, kChunkSize)) {
    out->views.emplace_back(kZeroChunk, std::min(n, kChunkSize));
  }
}

Status ViewFileRange(const ObjectTable& objects, uint64_t size, uint64_t chunk_size,
                     uint64_t offset, uint64_t length, const ChunkAt& chunk_at,
                     TreeEditor::ByteViews* out) {
  if (offset >= size || length == 0) return Status::Ok();
  uint64_t end = offset + std::min(length, size - offset);
  for (uint64_t index = offset / chunk_size; index * chunk_size < end; ++index) {
    uint64_t start = index * chunk_size;
    uint64_t from = std::max(offset, start) - start;
    uint64_t to = std::min(end, start + chunk_size) - start;
    VEXFS_ASSIGN_OR_RETURN(std::optional<ObjectId> id, chunk_at(index));
    std::string_view part;  // what the chunk holds of [from, to): short at its end
    if (id) {
      std::string scratch;
      // Only the pages of the chunk that the read returns are checked.
      VEXFS_ASSIGN_OR_RETURN(part, objects.ViewRange(*id, ObjectType::kChunk, from, to, &scratch));
      // A compressed chunk was inflated into `scratch` (raw ones never touch it):
      // keep it alive with the views.
      if (!part.empty() && !scratch.empty()) {
        size_t at = static_cast<size_t>(part.data() - scratch.data());
        const std::string& kept = out->owned.emplace_back(std::move(scratch));
        part = std::string_view(kept).substr(at, part.size());
      }
    }
    if (!part.empty()) out->views.push_back(part);
    AppendZeros(out, to - from - part.size());  // a hole, or a chunk's zero tail
    out->size += to - from;
  }
  return Status::Ok();
}

Result<std::string> ReadManifestRange(const ObjectTable& objects, const Manifest& m,
                                      uint64_t offset, uint64_t length) {
  TreeEditor::ByteViews views;
  auto chunk_at = [&m](uint64_t index) -> Result<std::optional<ObjectId>> {
    if (index >= m.chunks.size() || m.chunks[index].IsZero()) return std::optional<ObjectId>();
    return std::optional<ObjectId>(m.chunks[index]);
  };
  VEXFS_RETURN_IF_ERROR(ViewFileRange(objects, m.size, m.chunk_size, offset, length, chunk_at,
                                      &views));
  return views.Join();
}

}  // namespace internal

using internal::ChunkLength;
using internal::LoadChunk;
using internal::LoadRegular;
using internal::ResizeChunks;
using internal::SaveChanged;
using internal::StoreChunk;
using internal::StoreChunks;

std::string TreeEditor::ByteViews::Join() const {
  std::string out;
  out.reserve(size);
  for (std::string_view piece : views) out.append(piece);
  return out;
}

Result<std::string> TreeEditor::Read(uint64_t ino, uint64_t offset, uint64_t length) {
  ByteViews pieces;
  VEXFS_RETURN_IF_ERROR(ReadViews(ino, offset, length, &pieces));
  return pieces.Join();
}

Status TreeEditor::ReadViews(uint64_t ino, uint64_t offset, uint64_t length, ByteViews* out) {
  VEXFS_ASSIGN_OR_RETURN(InodeRecord rec, LoadRegular(scope_, ino));
  auto chunk_at = [&](uint64_t index) { return scope_->GetChunk(ino, index); };
  return internal::ViewFileRange(scope_->objects(), rec.size, kChunkSize, offset, length,
                                 chunk_at, out);
}

Status TreeEditor::Write(uint64_t ino, uint64_t offset, std::string_view data) {
  VEXFS_ASSIGN_OR_RETURN(InodeRecord rec, LoadRegular(scope_, ino));
  if (data.empty()) return Status::Ok();
  if (offset > kMaxFileSize || data.size() > kMaxFileSize - offset) {
    return Status::FileTooLarge("write would take inode " + std::to_string(ino) +
                                " past the 1 TiB file size limit");
  }
  uint64_t end = offset + data.size();
  uint64_t new_size = std::max(rec.size, end);
  VEXFS_RETURN_IF_ERROR(ResizeChunks(scope_, ino, rec.size, new_size));
  std::vector<std::pair<uint64_t, std::string_view>> whole;  // chunks replaced entirely
  for (uint64_t index = offset / kChunkSize; index * kChunkSize < end; ++index) {
    uint64_t start = index * kChunkSize;
    uint64_t from = std::max(offset, start);
    uint64_t to = std::min(end, start + kChunkSize);
    std::string_view part = data.substr(from - offset, to - from);
    if (from == start && to - start == ChunkLength(new_size, index)) {
      whole.emplace_back(index, part);
      continue;
    }
    VEXFS_ASSIGN_OR_RETURN(std::string bytes,
                           LoadChunk(scope_, ino, index, ChunkLength(new_size, index)));
    bytes.replace(from - start, to - from, part);
    VEXFS_RETURN_IF_ERROR(StoreChunk(scope_, ino, index, bytes));
  }
  VEXFS_RETURN_IF_ERROR(StoreChunks(scope_, ino, whole));
  rec.size = new_size;
  return SaveChanged(scope_, ino, &rec);
}

Status TreeEditor::Truncate(uint64_t ino, uint64_t size) {
  VEXFS_ASSIGN_OR_RETURN(InodeRecord rec, LoadRegular(scope_, ino));
  if (size > kMaxFileSize) {
    return Status::FileTooLarge("size " + std::to_string(size) + " is past the 1 TiB limit");
  }
  VEXFS_RETURN_IF_ERROR(ResizeChunks(scope_, ino, rec.size, size));
  rec.size = size;
  return SaveChanged(scope_, ino, &rec);
}

Status TreeEditor::ReplaceContent(uint64_t ino, std::string_view data) {
  VEXFS_ASSIGN_OR_RETURN(InodeRecord rec, LoadRegular(scope_, ino));
  if (data.size() > kMaxFileSize) {
    return Status::FileTooLarge("content is past the 1 TiB file size limit");
  }
  VEXFS_RETURN_IF_ERROR(
      internal::DeletePrefix(&scope_->txn(), scope_->dbs().chunks,
                             internal::ChunkPrefix(scope_->branch_id(), ino)));
  std::vector<std::pair<uint64_t, std::string_view>> chunks;
  for (uint64_t start = 0; start < data.size(); start += kChunkSize) {
    chunks.emplace_back(start / kChunkSize, data.substr(start, kChunkSize));
  }
  VEXFS_RETURN_IF_ERROR(StoreChunks(scope_, ino, chunks));
  rec.size = data.size();
  return SaveChanged(scope_, ino, &rec);
}

}  // namespace vexfs
