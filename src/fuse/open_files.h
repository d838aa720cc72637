// What the mount knows about files beyond the store: which inodes have open
// handles (an unlinked file must live until its last close) and their buffered
// writes. One InodeState per inode with open handles, shared by all of them.
#ifndef VEXFS_FUSE_OPEN_FILES_H_
#define VEXFS_FUSE_OPEN_FILES_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fuse/write_buffer.h"

namespace vexfs::fuse {

struct InodeState {
  std::mutex mu;  // guards `buffer`; taken before any store transaction
  std::optional<WriteBuffer> buffer;
  uint32_t handles = 0;  // guarded by OpenFiles' table lock
};

class OpenFiles {
 public:
  // Registers one more open handle of `ino`.
  std::shared_ptr<InodeState> Acquire(uint64_t ino);
  // Drops one handle; true if it was the last (the state is forgotten then).
  bool Release(uint64_t ino);
  // The state of an open inode, or null.
  std::shared_ptr<InodeState> Find(uint64_t ino) const;
  bool IsOpen(uint64_t ino) const { return Find(ino) != nullptr; }
  // Every open inode, for a final flush at shutdown.
  std::vector<std::pair<uint64_t, std::shared_ptr<InodeState>>> All() const;

  // Bytes buffered over all files, kept by the code that changes buffers.
  std::atomic<uint64_t> buffered_bytes{0};

 private:
  mutable std::mutex mu_;
  std::unordered_map<uint64_t, std::shared_ptr<InodeState>> states_;
};

}  // namespace vexfs::fuse

#endif  // VEXFS_FUSE_OPEN_FILES_H_
