// The chunk-level pieces of a working-tree file that file_data.cc (reads,
// writes, truncation) and file_ranges.cc (hole punching, range copies) share.
// Every function keeps the canonical form described in file_data.cc.
#ifndef VEXFS_STORE_FILE_CHUNKS_H_
#define VEXFS_STORE_FILE_CHUNKS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "store/store_impl.h"

namespace vexfs::internal {

// Canonical length of chunk `index` in a file of `size` bytes.
uint64_t ChunkLength(uint64_t size, uint64_t index);
// The inode record of a regular file; kIsDirectory or kInvalidArgument otherwise.
Result<InodeRecord> LoadRegular(TxnScope* scope, uint64_t ino);
// The bytes of chunk `index`, zero-padded or cut to `length`.
Result<std::string> LoadChunk(TxnScope* scope, uint64_t ino, uint64_t index, uint64_t length);
// Stores `bytes` as chunk `index` (all zeros: a hole).
Status StoreChunk(TxnScope* scope, uint64_t ino, uint64_t index, std::string_view bytes);
// Stores whole chunks, given as (index, bytes) pairs: like StoreChunk for each,
// but a large set is hashed and compressed on several cores first.
Status StoreChunks(TxnScope* scope, uint64_t ino,
                   const std::vector<std::pair<uint64_t, std::string_view>>& chunks);
// Views of bytes [offset, offset + length) of a file of `size` bytes cut into
// chunks of `chunk_size`, chunk `index` being `chunk_at(index)` (nullopt: a hole),
// appended to `out`: each chunk is checked only in the pages returned.
using ChunkAt = std::function<Result<std::optional<ObjectId>>(uint64_t index)>;
Status ViewFileRange(const ObjectTable& objects, uint64_t size, uint64_t chunk_size,
                     uint64_t offset, uint64_t length, const ChunkAt& chunk_at,
                     TreeEditor::ByteViews* out);
// Drops or re-cuts chunks so the file's chunks are canonical for `new_size`.
Status ResizeChunks(TxnScope* scope, uint64_t ino, uint64_t old_size, uint64_t new_size);
// Saves `rec` with a new mtime and ctime and marks the inode dirty.
Status SaveChanged(TxnScope* scope, uint64_t ino, InodeRecord* rec);

}  // namespace vexfs::internal

#endif  // VEXFS_STORE_FILE_CHUNKS_H_
