// Filesystem's files: open, buffered reads and writes, write-behind, flushes,
// fallocate, copies and seeks (directories: dir_handles.cc; xattrs: xattrs.cc;
// statfs: space.cc).
#include <fcntl.h>
#include <linux/falloc.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

#include "fuse/filesystem.h"
#include "fuse/kill_privs.h"
#include "fuse/virtual_tree.h"

namespace vexfs::fuse {

Result<OpenedFile> Filesystem::OpenHandle(uint64_t ino, int flags) {
  std::shared_lock lock(namespace_mu_);
  return OpenHandleLocked(ino, flags);
}

Result<OpenedFile> Filesystem::OpenHandleLocked(uint64_t ino, int flags) {
  open_files_.Acquire(ino);
  auto attr = StoreAttr(ino);
  if (!attr.ok()) {
    open_files_.Release(ino);
    return attr.status();
  }
  if (attr->type == FileType::kDirectory && (flags & O_ACCMODE) != O_RDONLY) {
    open_files_.Release(ino);
    return Status::IsDirectory("cannot open a directory for writing");
  }
  std::lock_guard handles(handles_mu_);
  uint64_t fh = next_handle_++;
  handles_[fh] = Handle{ino, flags, {}};
  return OpenedFile{fh, false};
}

Result<OpenedFile> Filesystem::Open(uint64_t ino, int flags, const Caller& caller) {
  bool writes = (flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC);
  if (writes) VEXFS_RETURN_IF_ERROR(RefuseIfReadOnly(ino));
  if (!IsVirtualIno(ino)) {
    VEXFS_ASSIGN_OR_RETURN(OpenedFile file, OpenHandle(ino, flags));
    // libfuse asks for atomic O_TRUNC: the truncate comes with the open.
    if (flags & O_TRUNC) {
      VEXFS_RETURN_IF_ERROR(TruncateOpened(ino, file.fh, caller, nullptr).status());
    }
    return file;
  }
  VEXFS_ASSIGN_OR_RETURN(std::optional<std::string> content, virtual_tree_->Generate(ino));
  std::lock_guard handles(handles_mu_);
  uint64_t fh = next_handle_++;
  handles_[fh] = Handle{ino, flags, content.value_or("")};
  // Generated content is made at open: the page cache must not serve an old copy.
  return OpenedFile{fh, content.has_value()};
}

Result<std::pair<Attributes, OpenedFile>> Filesystem::Create(uint64_t parent, std::string_view name,
                                                             uint32_t mode, int flags,
                                                             const Caller& caller) {
  // Held from the creation to the open: an unlink in between would delete the
  // file before it counts as open.
  std::shared_lock lock(namespace_mu_);
  auto created = Mknod(parent, name, S_IFREG | (mode & 07777), 0, caller);
  if (!created.ok()) {
    // Lost a race with another creator: without O_EXCL, open what is there.
    if (!(created.status().code() == StatusCode::kAlreadyExists) || (flags & O_EXCL))
      return created.status();
    VEXFS_ASSIGN_OR_RETURN(Attributes existing, Lookup(parent, name));
    // Opened before it is truncated, as Open does: a writer that opens the file
    // meanwhile shares its state, whose lock the truncate holds, rather than
    // buffering over the size from before the truncate.
    VEXFS_ASSIGN_OR_RETURN(OpenedFile file, OpenHandleLocked(existing.ino, flags));
    if (flags & O_TRUNC) {
      // The size the kernel caches from this reply must be the truncated one.
      VEXFS_ASSIGN_OR_RETURN(existing, TruncateOpened(existing.ino, file.fh, caller, &lock));
    }
    return std::make_pair(existing, file);
  }
  VEXFS_ASSIGN_OR_RETURN(OpenedFile file, OpenHandleLocked(created->ino, flags));
  return std::make_pair(*created, file);
}

Result<Attributes> Filesystem::TruncateOpened(uint64_t ino, uint64_t fh, const Caller& caller,
                                              std::shared_lock<std::shared_mutex>* held) {
  SetAttrRequest truncate;
  truncate.size = 0;
  truncate.caller = caller;
  auto truncated = SetAttr(ino, truncate);
  if (!truncated.ok()) {
    if (held) held->unlock();  // Release takes the namespace lock for itself
    (void)Release(ino, fh);
  }
  return truncated;
}

Result<std::string> Filesystem::Read(uint64_t ino, uint64_t fh, uint64_t offset, uint64_t length) {
  std::string out;
  VEXFS_RETURN_IF_ERROR(ReadTo(ino, fh, offset, length, [&](const auto& pieces) {
    for (std::string_view piece : pieces) out.append(piece);
  }));
  return out;
}

Result<std::string> Filesystem::ReadVirtual(uint64_t ino, uint64_t fh, uint64_t offset,
                                            uint64_t length) {
  {
    std::lock_guard handles(handles_mu_);
    auto it = handles_.find(fh);
    if (it != handles_.end() && !it->second.content.empty()) {
      const std::string& c = it->second.content;
      return offset >= c.size() ? std::string() : c.substr(offset, length);
    }
  }
  return virtual_tree_->Read(ino, offset, length);
}

Result<uint64_t> Filesystem::VirtualSize(uint64_t ino, uint64_t fh) {
  {
    std::lock_guard handles(handles_mu_);
    auto it = handles_.find(fh);
    // The same rule as ReadVirtual: content generated at open is what reads see.
    if (it != handles_.end() && !it->second.content.empty()) return it->second.content.size();
  }
  VEXFS_ASSIGN_OR_RETURN(Attributes attr, virtual_tree_->GetAttr(ino));
  return attr.size;
}

Status Filesystem::ReadTo(uint64_t ino, uint64_t fh, uint64_t offset, uint64_t length,
                          const ReadSink& sink) {
  if (IsVirtualIno(ino)) {
    VEXFS_ASSIGN_OR_RETURN(std::string data, ReadVirtual(ino, fh, offset, length));
    sink({data});
    return Status::Ok();
  }
  auto inode = open_files_.Find(ino);
  OpenInode::Guard guard;
  if (inode) {
    guard = inode->Lock();
    // Without buffered writes the store holds the file: a write or flush racing
    // with this read lands wholly before or after it (a flush is one
    // transaction), so readers need not queue behind each other.
    if (!guard.buffered()) guard = OpenInode::Guard();
  }
  return View([&](TreeEditor& ed) -> Status {
    TreeEditor::ByteViews stored;
    if (!guard.holds()) {
      VEXFS_RETURN_IF_ERROR(ed.ReadViews(ino, offset, length, &stored));
      sink(stored.views);  // straight from the map, inside the transaction
      return Status::Ok();
    }
    VEXFS_ASSIGN_OR_RETURN(Attributes attr, ed.GetAttr(ino));
    const uint64_t size = guard.SizeOver(attr.size);
    VEXFS_RETURN_IF_ERROR(ed.ReadViews(ino, offset, length, &stored));
    sink({guard.Overlay(offset, length, stored.Join(), size)});
    return Status::Ok();
  });
}

Result<size_t> Filesystem::Write(uint64_t ino, uint64_t /*fh*/, uint64_t offset,
                                 std::string_view data, const Caller& caller) {
  VEXFS_RETURN_IF_ERROR(RefuseIfReadOnly(ino));
  if (offset > kMaxFileSize || data.size() > kMaxFileSize - offset) {
    return Status::FileTooLarge("a write past 1 TiB, the largest file the store holds");
  }
  auto inode = open_files_.Find(ino);
  if (!inode) return Status::InvalidArgument("write to a file that is not open");
  {
    OpenInode::Guard guard = inode->Lock();
    // The store's attributes, read once and only where a check needs them: the
    // first write into an empty buffer, or one that may clear setuid/setgid.
    if (!guard.buffered() || !inode->privs_clear()) {
      VEXFS_ASSIGN_OR_RETURN(Attributes stored, StoreAttr(ino));
      if (stored.type != FileType::kRegular) return Status::IsDirectory("not a regular file");
      if (!inode->privs_clear()) {
        VEXFS_RETURN_IF_ERROR(DropPrivsBeforeWrite(ino, stored, *inode, caller));
      }
    }
    VEXFS_RETURN_IF_ERROR(guard.Write(offset, data));
  }
  if (open_files_.buffered_bytes() > options_.total_buffer_limit) FlushOthers(ino);
  return data.size();
}

Status Filesystem::DropPrivsBeforeWrite(uint64_t ino, const Attributes& attr,
                                        OpenInode& inode, const Caller& caller) {
  uint32_t mode = ModeAfterChangeBy(attr, caller);
  if (mode != attr.mode) {
    VEXFS_RETURN_IF_ERROR(Edit([&](TreeEditor& ed) -> Status {
      TreeEditor::AttrChange change;
      change.mode = mode;
      return ed.SetAttr(ino, change).status();
    }));
    if (on_mode_cleared_) on_mode_cleared_(ino);
  }
  // A root writer leaves the bits, so the next writer is checked again.
  inode.set_privs_clear(!HasPrivBits(mode));
  return Status::Ok();
}

void Filesystem::WriteOutAged(std::chrono::steady_clock::time_point now) {
  if (options_.read_only) return;
  const auto cutoff = now - options_.max_buffer_age;
  for (auto& [ino, inode] : open_files_.All()) inode->WriteOutIfOlderThan(cutoff);
}

void Filesystem::FlushOthers(uint64_t except) {
  // One thread at a time walks the open files; the others just write on.
  if (relieving_.exchange(true)) return;
  for (auto& [ino, inode] : open_files_.All()) {
    if (open_files_.buffered_bytes() <= options_.total_buffer_limit / 2) break;
    if (ino == except) continue;
    // A failure keeps the bytes buffered; close() or fsync() reports it.
    (void)inode->Lock().Flush();
  }
  relieving_ = false;
}

Status Filesystem::Flush(uint64_t ino, uint64_t /*fh*/) {
  auto inode = IsVirtualIno(ino) ? nullptr : open_files_.Find(ino);
  if (!inode) return Status::Ok();
  return inode->Lock().Flush();
}

Status Filesystem::Release(uint64_t ino, uint64_t fh) {
  {
    std::lock_guard handles(handles_mu_);
    handles_.erase(fh);
  }
  if (IsVirtualIno(ino)) return Status::Ok();
  auto inode = open_files_.Find(ino);
  if (!inode) return Status::Ok();
  Status flushed = inode->Lock().Flush();
  std::unique_lock ns(namespace_mu_);
  if (!open_files_.Release(ino)) return flushed;
  // What could not be flushed by now was reported to close() already; the
  // last handle is gone, so the bytes are too. The log says so.
  inode->Lock().Drop(flushed);
  Attributes attr;
  Status st = View([&](TreeEditor& ed) -> Status {
    VEXFS_ASSIGN_OR_RETURN(attr, ed.GetAttr(ino));
    return Status::Ok();
  });
  if (st.ok() && attr.nlink == 0 && !options_.read_only) {
    VEXFS_RETURN_IF_ERROR(Edit([&](TreeEditor& ed) { return ed.ReleaseOrphan(ino); }));
  }
  return flushed;
}

Status Filesystem::Fsync(uint64_t ino, uint64_t fh) {
  VEXFS_RETURN_IF_ERROR(Flush(ino, fh));
  return SyncStore();
}

Result<OpenInode::Guard> Filesystem::FlushAndHold(uint64_t ino) {
  auto inode = open_files_.Find(ino);
  if (!inode) return OpenInode::Guard();
  OpenInode::Guard guard = inode->Lock();
  VEXFS_RETURN_IF_ERROR(guard.Flush());
  return guard;
}

Status Filesystem::Fallocate(uint64_t ino, int mode, uint64_t offset, uint64_t length,
                             const Caller& caller) {
  VEXFS_RETURN_IF_ERROR(RefuseIfReadOnly(ino));
  const int known = FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE;
  if (mode & ~known) return Status::NotSupported("fallocate mode " + std::to_string(mode));
  bool punch = mode & FALLOC_FL_PUNCH_HOLE, zero = mode & FALLOC_FL_ZERO_RANGE;
  bool keep_size = mode & FALLOC_FL_KEEP_SIZE;
  if ((punch && !keep_size) || (punch && zero)) {
    return Status::InvalidArgument("punching a hole needs FALLOC_FL_KEEP_SIZE alone");
  }
  if (length == 0) return Status::InvalidArgument("fallocate of zero bytes");
  if (offset > kMaxFileSize || length > kMaxFileSize - offset) {
    return Status::FileTooLarge("fallocate past the 1 TiB file size limit");
  }
  VEXFS_ASSIGN_OR_RETURN(auto hold, FlushAndHold(ino));
  uint64_t free_bytes = 0;
  if (!punch) {
    VEXFS_ASSIGN_OR_RETURN(free_bytes, FreeBytes());
  }
  bool cleared = false;  // setuid or setgid, by a change of someone else's file
  VEXFS_RETURN_IF_ERROR(Edit([&](TreeEditor& ed) -> Status {
    VEXFS_ASSIGN_OR_RETURN(Attributes attr, ed.GetAttr(ino));
    if (!punch) VEXFS_RETURN_IF_ERROR(CheckRoom(attr.size, offset + length, free_bytes));
    if (!keep_size && offset + length > attr.size) {
      VEXFS_RETURN_IF_ERROR(ed.Truncate(ino, offset + length));  // reads as zeros
    }
    if (punch || zero) VEXFS_RETURN_IF_ERROR(ed.ZeroRange(ino, offset, length));
    uint32_t kept = ModeAfterChangeBy(attr, caller);
    if (kept == attr.mode) return Status::Ok();
    TreeEditor::AttrChange change;
    change.mode = kept;
    cleared = true;
    return ed.SetAttr(ino, change).status();
  }));
  if (cleared && on_mode_cleared_) on_mode_cleared_(ino);
  return Status::Ok();
}

Result<uint64_t> Filesystem::CopyFileRange(uint64_t src, uint64_t src_offset, uint64_t dst,
                                           uint64_t dst_offset, uint64_t length) {
  VEXFS_RETURN_IF_ERROR(RefuseIfReadOnly(dst));
  if (IsVirtualIno(src)) return Status::NotSupported("copy from a generated file");
  // The destination's lock is held until the copy is committed: a write let in
  // between would buffer the size from before the copy and hide what it added.
  // The source's is let go first (one lock at a time), unless it is the same file.
  if (dst != src) {
    VEXFS_ASSIGN_OR_RETURN(auto flushed, FlushAndHold(src));
  }
  VEXFS_ASSIGN_OR_RETURN(auto hold, FlushAndHold(dst));
  uint64_t copied = 0;
  VEXFS_RETURN_IF_ERROR(Edit([&](TreeEditor& ed) -> Status {
    VEXFS_ASSIGN_OR_RETURN(copied, ed.CopyRange(src, src_offset, dst, dst_offset, length));
    return Status::Ok();
  }));
  return copied;
}

Result<std::optional<uint64_t>> Filesystem::Seek(uint64_t ino, uint64_t fh, uint64_t offset,
                                                int whence) {
  if (whence != SEEK_DATA && whence != SEEK_HOLE) {
    return Status::InvalidArgument("lseek whence " + std::to_string(whence));
  }
  if (IsVirtualIno(ino)) {
    VEXFS_ASSIGN_OR_RETURN(uint64_t size, VirtualSize(ino, fh));
    if (offset >= size) return std::optional<uint64_t>();
    return std::optional<uint64_t>(whence == SEEK_DATA ? offset : size);
  }
  // Buffered writes reach the store first, where holes are known by chunk. A
  // seek is rare (a sparse-aware copy asks once per region), so the commit costs
  // less than merging the buffers' extents into the answer would in code.
  VEXFS_ASSIGN_OR_RETURN(auto hold, FlushAndHold(ino));
  std::optional<uint64_t> at;
  VEXFS_RETURN_IF_ERROR(View([&](TreeEditor& ed) -> Status {
    VEXFS_ASSIGN_OR_RETURN(at, whence == SEEK_DATA ? ed.SeekData(ino, offset)
                                                   : ed.SeekHole(ino, offset));
    return Status::Ok();
  }));
  return at;
}

Status Filesystem::SyncStore() {
  if (options_.read_only) return Status::Ok();
  unsynced_ = false;
  Status st = store_->Sync();
  if (!st.ok()) unsynced_ = true;  // the syncer tries again
  return st;
}

Status Filesystem::SyncIfDirty() {
  if (!unsynced_.exchange(false)) return Status::Ok();
  Status st = store_->Sync();
  if (!st.ok()) unsynced_ = true;
  return st;
}

Status Filesystem::FlushAll() {
  Status first;
  for (auto& [ino, inode] : open_files_.All()) {
    OpenInode::Guard guard = inode->Lock();
    Status st = guard.Flush();
    // The daemon is stopping: what cannot reach the store now goes with it.
    if (!st.ok()) guard.Drop(st);
    if (first.ok()) first = st;
  }
  Status synced = SyncStore();
  return first.ok() ? synced : first;
}

}  // namespace vexfs::fuse
