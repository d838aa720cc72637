// Writes to one file that have not reached the store yet.
//
// The mount buffers writes per inode (not per handle) so that every handle of a
// file, and every reader, sees one consistent file: a read overlays the buffer on
// what the store holds. The buffer reaches the store in one transaction at flush,
// fsync, close, a size or attribute change, when it grows past its limit, or
// once its oldest bytes are older than FilesystemOptions::max_buffer_age.
//
// It holds writes only: a truncate (SetAttr) writes the buffer out first and
// changes the size in the store. The buffer never holds a size of its own, only
// where its writes end: the file's size is the larger of that and the store's
// size at the time it is asked, so a size change another process (or a truncate
// racing the buffer's first write) made meanwhile shows at once and is kept
// when the buffer drains (writes extend the file as needed).
// - `extents` (non-overlapping; neighbours may touch) hold the bytes written;
// - `end` is one past the last byte written.
// Not thread-safe: the owner (OpenFiles) locks around it.
#ifndef VEXFS_FUSE_WRITE_BUFFER_H_
#define VEXFS_FUSE_WRITE_BUFFER_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "vexfs/store.h"
#include "vexfs/types.h"

namespace vexfs::fuse {

class WriteBuffer {
 public:
  // `mtime`: when the file was last written, if by a buffer still on its way
  // to the store.
  explicit WriteBuffer(TimeNs mtime = 0) : mtime_(mtime) {}

  void Write(uint64_t offset, std::string_view data);

  // One past the last byte written (0 if none): the file is at least this long.
  uint64_t end() const { return end_; }
  // Bytes held, the measure for flushing under memory pressure.
  uint64_t bytes() const { return bytes_; }
  bool empty() const { return extents_.empty(); }
  TimeNs mtime() const { return mtime_; }
  // When the oldest byte held was written (steady clock; meaningless while
  // empty): how long a file kept open has kept it from the store.
  std::chrono::steady_clock::time_point first_write() const { return first_write_; }

  // Bytes [offset, offset + length) of the file as it is with this buffer applied,
  // given `stored` = the store's bytes from `offset` (short at the store's end of
  // file) and `size` = the file's size, at least end(). Short only at `size`.
  std::string Overlay(uint64_t offset, uint64_t length, std::string_view stored,
                      uint64_t size) const;

  // Applies everything to inode `ino` inside `editor`'s transaction.
  Status ApplyTo(TreeEditor& editor, uint64_t ino) const;

 private:
  // A sequential writer's bytes are kept in extents of about this size.
  static constexpr uint64_t kExtentBytes = uint64_t{1} << 20;

  std::map<uint64_t, std::string> extents_;  // offset -> bytes
  uint64_t end_ = 0;
  uint64_t bytes_ = 0;
  TimeNs mtime_ = 0;
  std::chrono::steady_clock::time_point first_write_;
};

}  // namespace vexfs::fuse

#endif  // VEXFS_FUSE_WRITE_BUFFER_H_
