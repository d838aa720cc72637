// OpenInode: an open file's buffered writes and the rules by which they reach
// the store (see open_inode.h).
#include "fuse/open_inode.h"

#include <algorithm>
#include <cstdio>
#include <utility>

namespace vexfs::fuse {

uint64_t OpenInode::Guard::SizeOver(uint64_t store_size) const {
  uint64_t size = store_size;
  if (inode_->buffer_) size = std::max(size, inode_->buffer_->end());
  if (inode_->behind_) size = std::max(size, inode_->behind_->end());
  return size;
}

std::string OpenInode::Guard::Overlay(uint64_t offset, uint64_t length, std::string_view stored,
                                      uint64_t size) const {
  const auto& buffer = *inode_->buffer_;
  const auto& behind = inode_->behind_;
  if (!behind) return buffer.Overlay(offset, length, stored, size);
  return buffer.Overlay(offset, length, behind->Overlay(offset, length, stored, size), size);
}

Status OpenInode::Guard::Write(uint64_t offset, std::string_view data) {
  // Make room first: a write that fails must leave nothing of itself behind.
  VEXFS_RETURN_IF_ERROR(inode_->MakeRoom(lock_, data.size()));
  auto& buffer = inode_->buffer_;
  if (!buffer) buffer.emplace();
  uint64_t before = buffer->bytes();
  buffer->Write(offset, data);
  inode_->context_->buffered_bytes += buffer->bytes() - before;
  return Status::Ok();
}

Status OpenInode::Guard::Flush() { return inode_->FlushLocked(lock_); }

void OpenInode::Guard::Drop(const Status& why) {
  // The lock may have been let go since the last flush: a write-out started
  // meanwhile owns its bytes until it ends.
  inode_->behind_done_.wait(lock_, [&] { return !inode_->behind_busy_; });
  if (uint64_t lost = inode_->BufferedBytes(); lost > 0) {
    std::fprintf(stderr, "vexfs mount: dropping %llu unwritten bytes of inode %llu: %s\n",
                 static_cast<unsigned long long>(lost),
                 static_cast<unsigned long long>(inode_->ino_), why.ToString().c_str());
  }
  inode_->ForgetBuffers();
}

uint64_t OpenInode::BufferedBytes() const {
  return (buffer_ ? buffer_->bytes() : 0) + (behind_ ? behind_->bytes() : 0);
}

void OpenInode::ForgetBuffers() {
  context_->buffered_bytes -= BufferedBytes();
  buffer_.reset();
  behind_.reset();
}

Status OpenInode::FlushLocked(std::unique_lock<std::mutex>& lock) {
  ++flush_waiters_;
  behind_done_.wait(lock, [&] { return !behind_busy_; });
  // Writers held back for this flush wake to the lock, free once it is done.
  if (--flush_waiters_ == 0) behind_done_.notify_all();
  if (behind_) {
    // A write-out that failed in the background: its bytes go first.
    VEXFS_RETURN_IF_ERROR(context_->apply(ino_, *behind_));
    context_->buffered_bytes -= behind_->bytes();
    behind_.reset();
  }
  if (!buffer_) return Status::Ok();
  // On failure (a full store, say) the bytes stay buffered for a retry.
  if (!buffer_->empty()) VEXFS_RETURN_IF_ERROR(context_->apply(ino_, *buffer_));
  ForgetBuffers();
  return Status::Ok();
}

Status OpenInode::MakeRoom(std::unique_lock<std::mutex>& lock, uint64_t incoming) {
  if (!buffer_) return Status::Ok();
  if (context_->buffered_bytes + incoming > context_->total_buffer_limit) {
    return FlushLocked(lock);  // memory pressure: no more in flight
  }
  if (!context_->write_behind) {
    if (buffer_->bytes() + incoming <= context_->file_buffer_limit) return Status::Ok();
    return FlushLocked(lock);
  }
  // Half the limit in `buffer_`, half in `behind_`: a file never holds more.
  auto fits = [&] {
    return !buffer_ || buffer_->bytes() + incoming <= context_->file_buffer_limit / 2;
  };
  if (fits()) return Status::Ok();
  // One write-out per file at a time: a writer faster than the store waits
  // here, and lets a flush or fsync waiting too go first; otherwise it could
  // start the next write-out before them, again and again, and keep them waiting.
  behind_done_.wait(lock, [&] { return !behind_busy_ && flush_waiters_ == 0; });
  // The last one failed: try it again now, and fail this write if it fails.
  if (behind_) return FlushLocked(lock);
  // The lock was let go while waiting: a flush may have written the buffer out.
  if (fits() || buffer_->empty()) return Status::Ok();
  StartWriteBehind();
  return Status::Ok();
}

void OpenInode::StartWriteBehind() {
  const TimeNs mtime = buffer_->mtime();
  behind_ = std::make_shared<const WriteBuffer>(std::move(*buffer_));
  buffer_.emplace(mtime);
  behind_busy_ = true;
  context_->writer->Post([self = shared_from_this()] { self->WriteOutBehind(); });
}

void OpenInode::WriteOutBehind() {
  std::shared_ptr<const WriteBuffer> behind;
  {
    std::lock_guard lock(mu_);
    behind = behind_;
  }
  // Without the file's lock: its writer goes on meanwhile. Readers overlay
  // `behind_` until it is dropped below, so they see the same bytes whether
  // their snapshot of the store is from before this commit or after it.
  // (No buffer, never expected: nothing to write, but the waiters still wake.)
  Status st = behind ? context_->apply(ino_, *behind) : Status::Ok();
  std::lock_guard lock(mu_);
  if (st.ok() && behind) {
    context_->buffered_bytes -= behind->bytes();
    behind_.reset();
  }
  behind_busy_ = false;
  behind_done_.notify_all();
}

void OpenInode::WriteOutIfOlderThan(std::chrono::steady_clock::time_point cutoff) {
  std::lock_guard lock(mu_);
  if (behind_busy_ || flush_waiters_ > 0) return;
  if (behind_) {
    // An earlier write-out failed (a full store, say): try it again, so a
    // file that stays open still gets out once it can.
    behind_busy_ = true;
    context_->writer->Post([self = shared_from_this()] { self->WriteOutBehind(); });
    return;
  }
  if (!buffer_ || buffer_->empty() || buffer_->first_write() > cutoff) return;
  StartWriteBehind();
}

}  // namespace vexfs::fuse
