// Which inodes have open handles: an unlinked file must live until its last
// close, and every handle of a file shares its buffered writes (open_inode.h).
#ifndef VEXFS_FUSE_OPEN_FILES_H_
#define VEXFS_FUSE_OPEN_FILES_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fuse/open_inode.h"

namespace vexfs::fuse {

class OpenFiles {
 public:
  // `context` is what the buffers of every inode opened here share.
  explicit OpenFiles(BufferContext* context) : context_(context) {}

  // Registers one more open handle of `ino`.
  std::shared_ptr<OpenInode> Acquire(uint64_t ino);
  // Drops one handle; true if it was the last (the inode is forgotten then).
  bool Release(uint64_t ino);
  // The open inode `ino`, or null.
  std::shared_ptr<OpenInode> Find(uint64_t ino) const;
  bool IsOpen(uint64_t ino) const { return Find(ino) != nullptr; }
  // Every open inode, for write-outs of aged buffers and a final flush.
  std::vector<std::pair<uint64_t, std::shared_ptr<OpenInode>>> All() const;
  // Bytes buffered over all files.
  uint64_t buffered_bytes() const { return context_->buffered_bytes; }

 private:
  BufferContext* const context_;
  mutable std::mutex mu_;
  std::unordered_map<uint64_t, std::shared_ptr<OpenInode>> inodes_;
};

}  // namespace vexfs::fuse

#endif  // VEXFS_FUSE_OPEN_FILES_H_
