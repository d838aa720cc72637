// What the mount knows about files beyond the store: which inodes have open
// handles (an unlinked file must live until its last close) and their buffered
// writes. One InodeState per inode with open handles, shared by all of them.
//
// A file's writes are in at most two buffers: `buffer`, which takes new writes,
// and `behind`, an older full one being written out in the background
// (write_behind.h). Reads see the store, then `behind`, then `buffer`; `behind`
// exists only beside a `buffer`, so a file without `buffer` has nothing
// buffered.
#ifndef VEXFS_FUSE_OPEN_FILES_H_
#define VEXFS_FUSE_OPEN_FILES_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fuse/write_buffer.h"

namespace vexfs::fuse {

struct InodeState {
  std::mutex mu;  // guards the members below but `handles`; taken before any store transaction
  std::optional<WriteBuffer> buffer;
  // Handed to the background writer while `behind_busy`; still here after that
  // only if writing it out failed: the file's next write, flush or close writes
  // it out first, or reports why it cannot.
  std::shared_ptr<const WriteBuffer> behind;
  bool behind_busy = false;
  // Flushes waiting for `behind` to finish: no writer starts the next write-out
  // before they have had their turn.
  uint32_t flush_waiters = 0;
  // Notified when behind_busy turns false and when flush_waiters drops to 0.
  std::condition_variable behind_done;
  uint32_t handles = 0;  // guarded by OpenFiles' table lock
  // The file was seen without setuid and setgid since its mode last changed
  // through the mount: a write has nothing to clear (kill_privs.h).
  std::atomic<bool> privs_clear{false};

  // The file's size with both buffers applied over a store that holds
  // `store_size` bytes of it (read under `mu`, in the same transaction as the
  // bytes the buffers are laid over).
  uint64_t SizeOver(uint64_t store_size) const;
  // Bytes [offset, offset + length) with both buffers applied over `stored`, the
  // store's bytes from `offset`, for a file of `size` = SizeOver() bytes.
  // Needs `buffer`.
  std::string Overlay(uint64_t offset, uint64_t length, std::string_view stored,
                      uint64_t size) const;
  // Bytes held by both buffers.
  uint64_t BufferedBytes() const;
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
