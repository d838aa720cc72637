// One inode with open handles, as the mount keeps it beyond the store: its
// buffered writes, the lock that orders them, and the rules by which they reach
// the store (write-behind, flushes, limits). One per inode, shared by all of its
// handles (open_files.h keeps the table).
//
// A file's writes are in at most two buffers: `buffer_`, which takes new
// writes, and `behind_`, an older full one being written out in the background
// (write_behind.h). Reads see the store, then `behind_`, then `buffer_`;
// `behind_` exists only beside a `buffer_`, so a file without `buffer_` has
// nothing buffered.
//
// Everything touching the buffers goes through a Guard, which holds the inode's
// lock: a caller that must read or change the store consistently with the
// buffers (a read overlaying them, a truncate after a flush) keeps the Guard for
// as long. The lock is taken before any store transaction, never inside one.
#ifndef VEXFS_FUSE_OPEN_INODE_H_
#define VEXFS_FUSE_OPEN_INODE_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "fuse/write_behind.h"
#include "fuse/write_buffer.h"
#include "vexfs/status.h"

namespace vexfs::fuse {

// What the buffers of every open inode share: their limits, the bytes buffered
// over all files, the background writer and the one way a buffer reaches the
// store. Owned by the file system; outlives every OpenInode.
struct BufferContext {
  uint64_t file_buffer_limit = 0;   // one file's buffers together
  uint64_t total_buffer_limit = 0;  // all files' buffers together
  bool write_behind = true;         // full buffers go out in the background
  std::atomic<uint64_t> buffered_bytes{0};
  WriteBehind* writer = nullptr;
  // Applies `buffer` to inode `ino` in one store transaction.
  std::function<Status(uint64_t ino, const WriteBuffer& buffer)> apply;
};

class OpenInode : public std::enable_shared_from_this<OpenInode> {
 public:
  OpenInode(uint64_t ino, BufferContext* context) : ino_(ino), context_(context) {}
  OpenInode(const OpenInode&) = delete;
  OpenInode& operator=(const OpenInode&) = delete;

  // The inode's lock and what may be done while holding it. Empty (holding
  // nothing) when default-constructed or moved from.
  class Guard {
   public:
    Guard() = default;
    explicit Guard(OpenInode* inode) : inode_(inode), lock_(inode->mu_) {}

    bool holds() const { return lock_.owns_lock(); }
    // Whether the file has buffered writes (reads must overlay them).
    bool buffered() const { return inode_->buffer_.has_value(); }
    // The file's size with both buffers applied over a store that holds
    // `store_size` bytes of it (read in the same transaction as the bytes the
    // buffers are laid over).
    uint64_t SizeOver(uint64_t store_size) const;
    // When the buffers last changed the file; needs buffered().
    TimeNs buffered_mtime() const { return inode_->buffer_->mtime(); }
    // Bytes [offset, offset + length) with both buffers applied over `stored`,
    // the store's bytes from `offset`, for a file of `size` = SizeOver() bytes.
    // Needs buffered().
    std::string Overlay(uint64_t offset, uint64_t length, std::string_view stored,
                        uint64_t size) const;

    // Buffers `data` at `offset`, first writing out or handing to the
    // background what would pass a limit; on failure nothing of `data` is kept.
    Status Write(uint64_t offset, std::string_view data);
    // Writes both buffers to the store, waiting first for a write-out in the
    // background. On failure the bytes stay buffered for a retry.
    Status Flush();
    // The last handle is gone: waits for a write-out in flight, then forgets
    // what is still buffered, logging it as lost because of `why`.
    void Drop(const Status& why);

   private:
    OpenInode* inode_ = nullptr;
    std::unique_lock<std::mutex> lock_;
  };

  Guard Lock() { return Guard(this); }

  // Hands the buffer to the background if its oldest bytes were written before
  // `cutoff`, or retries a write-out that failed. A file with a write-out in
  // flight, or a flush waiting for one, is left to them.
  void WriteOutIfOlderThan(std::chrono::steady_clock::time_point cutoff);

  // The file was seen without setuid and setgid since its mode last changed
  // through the mount: a write has nothing to clear (kill_privs.h).
  bool privs_clear() const { return privs_clear_; }
  void set_privs_clear(bool clear) { privs_clear_ = clear; }

 private:
  friend class OpenFiles;

  uint64_t BufferedBytes() const;
  void ForgetBuffers();
  Status FlushLocked(std::unique_lock<std::mutex>& lock);
  // Before `incoming` more bytes are buffered: writes the buffer out, or hands
  // it to the background, if they would pass a limit.
  Status MakeRoom(std::unique_lock<std::mutex>& lock, uint64_t incoming);
  // Moves the full buffer to `behind_` and posts its write-out.
  void StartWriteBehind();
  // The background half: writes `behind_` out (on the writer's thread).
  void WriteOutBehind();

  const uint64_t ino_;
  BufferContext* const context_;
  std::mutex mu_;  // guards the members below but `handles_` and `privs_clear_`
  std::optional<WriteBuffer> buffer_;
  // Handed to the background writer while `behind_busy_`; still here after that
  // only if writing it out failed: the file's next write, flush or close writes
  // it out first, or reports why it cannot.
  std::shared_ptr<const WriteBuffer> behind_;
  bool behind_busy_ = false;
  // Flushes waiting for `behind_` to finish: no writer starts the next
  // write-out before they have had their turn.
  uint32_t flush_waiters_ = 0;
  // Notified when behind_busy_ turns false and when flush_waiters_ drops to 0.
  std::condition_variable behind_done_;
  uint32_t handles_ = 0;  // guarded by OpenFiles' table lock
  std::atomic<bool> privs_clear_{false};
};

}  // namespace vexfs::fuse

#endif  // VEXFS_FUSE_OPEN_INODE_H_
