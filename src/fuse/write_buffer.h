// Writes to one file that have not reached the store yet.
//
// The mount buffers writes per inode (not per handle) so that every handle of a
// file, and every reader, sees one consistent file: a read overlays the buffer on
// what the store holds. The buffer reaches the store in one transaction at flush,
// fsync, close, a size or attribute change, or when it grows past its limit.
//
// It holds writes only: a truncate (SetAttr) writes the buffer out first and
// changes the size in the store, so the store's bytes below `size` are always
// the file's, and a drained buffer never sets the size itself (writes extend the
// file as needed; a size change another process made meanwhile is kept).
// - `extents` (non-overlapping; neighbours may touch) hold the bytes written;
// - `size` is the file's logical size.
// Not thread-safe: the owner (OpenFiles) locks around it.
#ifndef VEXFS_FUSE_WRITE_BUFFER_H_
#define VEXFS_FUSE_WRITE_BUFFER_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "vexfs/store.h"
#include "vexfs/types.h"

namespace vexfs::fuse {

class WriteBuffer {
 public:
  // `store_size`: the file's size when buffering starts; `mtime`: when it was
  // last written, if by a buffer still on its way to the store.
  explicit WriteBuffer(uint64_t store_size, TimeNs mtime = 0) : size_(store_size), mtime_(mtime) {}

  void Write(uint64_t offset, std::string_view data);

  uint64_t size() const { return size_; }
  // Bytes held, the measure for flushing under memory pressure.
  uint64_t bytes() const { return bytes_; }
  bool empty() const { return extents_.empty(); }
  TimeNs mtime() const { return mtime_; }

  // Bytes [offset, offset + length) of the file as it is with this buffer applied,
  // given `stored` = the store's bytes from `offset` (short at its end of file).
  // Short only at the logical end of file.
  std::string Overlay(uint64_t offset, uint64_t length, std::string_view stored) const;
  // How many bytes from `offset` to ask the store for: none past the size.
  uint64_t StoredLength(uint64_t offset, uint64_t length) const;

  // Applies everything to inode `ino` inside `editor`'s transaction.
  Status ApplyTo(TreeEditor& editor, uint64_t ino) const;

 private:
  // A sequential writer's bytes are kept in extents of about this size.
  static constexpr uint64_t kExtentBytes = uint64_t{1} << 20;

  std::map<uint64_t, std::string> extents_;  // offset -> bytes
  uint64_t size_;
  uint64_t bytes_ = 0;
  TimeNs mtime_ = 0;
};

}  // namespace vexfs::fuse

#endif  // VEXFS_FUSE_WRITE_BUFFER_H_
