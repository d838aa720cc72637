// The file system a mount serves: POSIX operations on one branch's working tree,
// plus the read-only `.vexfs/` tree (virtual_tree.h). Every operation returns a
// Status; fuse_ops.cc turns it into exactly one FUSE reply.
//
// Inode numbers are the working tree's own (the root is 1, as FUSE wants);
// numbers with the top bit set belong to the virtual tree.
//
// Writes are buffered per inode (write_buffer.h) and reach the store in one
// transaction at flush (each close), fsync, release, an attribute change, when
// the buffer passes its limits, or when its bytes have waited too long; a file's
// full or old buffer is written out in the background while its writer goes on
// (write_behind.h). Commits are not synced one by one: fsync and
// fdatasync sync the store before they return, and a background thread syncs
// about once a second (docs/mount.md).
//
// Thread-safety: every method may be called from many threads at once.
#ifndef VEXFS_FUSE_FILESYSTEM_H_
#define VEXFS_FUSE_FILESYSTEM_H_

#include <sys/statvfs.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "fuse/caller.h"
#include "fuse/open_files.h"
#include "fuse/write_behind.h"
#include "vexfs/graph.h"
#include "vexfs/index.h"
#include "vexfs/store.h"

namespace vexfs::fuse {

class VirtualTree;

struct SetAttrRequest {
  std::optional<uint32_t> mode;
  std::optional<uint32_t> uid;
  std::optional<uint32_t> gid;
  std::optional<uint64_t> size;
  std::optional<TimeNs> atime;
  std::optional<TimeNs> mtime;
  // Who asks: a truncate by anyone but root may clear setuid and setgid.
  Caller caller;
};

struct OpenedFile {
  uint64_t fh = 0;
  bool direct_io = false;  // generated content: the page cache must not keep it
};

struct DirItem {
  std::string name;
  uint64_t ino = 0;
  FileType type = FileType::kRegular;
};

// setxattr's XATTR_CREATE / XATTR_REPLACE.
enum class XattrMode { kAny, kCreate, kReplace };

struct FilesystemOptions {
  std::string branch;  // "" = the store's current branch
  bool read_only = false;
  // Buffered writes are flushed when one file holds more than this ...
  uint64_t file_buffer_limit = uint64_t{16} << 20;
  // ... in the background, half of it at a time, while the other half buffers
  // the writes that follow (false: in the write that passes the limit).
  bool write_behind = true;
  // ... or all files together hold more than this.
  uint64_t total_buffer_limit = uint64_t{256} << 20;
  // ... or, in the background, once bytes have waited this long (checked by
  // WriteOutAged, about once a second): a file kept open still reaches other
  // processes, the index and the disk.
  std::chrono::milliseconds max_buffer_age{5000};
  // The memory graph `.vexfs/graph/` shows (null: no such view).
  Graph* graph = nullptr;
};

inline constexpr uint64_t kVirtualInoBit = uint64_t{1} << 63;
inline bool IsVirtualIno(uint64_t ino) { return (ino & kVirtualInoBit) != 0; }

class Filesystem {
 public:
  // `index` may be null: then search views and vector xattrs are unavailable.
  static Result<std::unique_ptr<Filesystem>> Create(Store* store, Index* index,
                                                    const FilesystemOptions& options);
  ~Filesystem();

  const std::string& branch() const { return branch_; }

  // Names and attributes.
  Result<Attributes> Lookup(uint64_t parent, std::string_view name);
  void Forget(uint64_t ino, uint64_t count);
  Result<Attributes> GetAttr(uint64_t ino);
  Result<Attributes> SetAttr(uint64_t ino, const SetAttrRequest& request);
  Result<std::string> ReadLink(uint64_t ino);

  // Namespace changes.
  // A regular file, FIFO, socket or device node, by the type bits of `mode`;
  // `rdev` is kept for devices only.
  Result<Attributes> Mknod(uint64_t parent, std::string_view name, uint32_t mode,
                           uint64_t rdev, const Caller& caller);
  Result<Attributes> Mkdir(uint64_t parent, std::string_view name, uint32_t mode,
                           const Caller& caller);
  Result<Attributes> Symlink(uint64_t parent, std::string_view name, std::string_view target,
                             const Caller& caller);
  Result<Attributes> Link(uint64_t ino, uint64_t new_parent, std::string_view new_name);
  Status Unlink(uint64_t parent, std::string_view name);
  Status Rmdir(uint64_t parent, std::string_view name);
  // `flags`: 0, RENAME_NOREPLACE or RENAME_EXCHANGE (anything else is
  // kInvalidArgument).
  Status Rename(uint64_t parent, std::string_view name, uint64_t new_parent,
                std::string_view new_name, unsigned flags);

  // Files. `flags` are open(2)'s.
  Result<OpenedFile> Open(uint64_t ino, int flags, const Caller& caller = {});
  Result<std::pair<Attributes, OpenedFile>> Create(uint64_t parent, std::string_view name,
                                                   uint32_t mode, int flags, const Caller& caller);
  // Reads hand `sink` the bytes as pieces in order, once, before returning; the
  // pieces may point into the store's map and are valid only during the call.
  // Nothing is copied on the way unless the file has buffered writes.
  using ReadSink = std::function<void(const std::vector<std::string_view>& pieces)>;
  Status ReadTo(uint64_t ino, uint64_t fh, uint64_t offset, uint64_t length,
                const ReadSink& sink);
  // The same bytes as one string.
  Result<std::string> Read(uint64_t ino, uint64_t fh, uint64_t offset, uint64_t length);
  // Called with the inode of a file whose setuid or setgid a change cleared,
  // which no reply carries back to the kernel's attribute cache.
  void OnModeCleared(std::function<void(uint64_t ino)> hook) { on_mode_cleared_ = std::move(hook); }
  // A write by anyone but root may clear setuid and setgid (kill_privs.h).
  Result<size_t> Write(uint64_t ino, uint64_t fh, uint64_t offset, std::string_view data,
                       const Caller& caller = {});
  Status Flush(uint64_t ino, uint64_t fh);
  Status Release(uint64_t ino, uint64_t fh);
  Status Fsync(uint64_t ino, uint64_t fh);
  // fallocate(2): `mode` 0 or FALLOC_FL_KEEP_SIZE, optionally with
  // FALLOC_FL_PUNCH_HOLE (which needs KEEP_SIZE) or FALLOC_FL_ZERO_RANGE; other
  // modes are kNotSupported. Nothing is reserved: the store is sparse.
  Status Fallocate(uint64_t ino, int mode, uint64_t offset, uint64_t length,
                   const Caller& caller = {});
  // copy_file_range(2): bytes copied (maybe fewer than asked); chunk-aligned
  // ranges share chunks instead of copying them.
  Result<uint64_t> CopyFileRange(uint64_t src, uint64_t src_offset, uint64_t dst,
                                 uint64_t dst_offset, uint64_t length);
  // lseek(2)'s SEEK_DATA and SEEK_HOLE (`whence`; anything else is
  // kInvalidArgument): where the next data or hole begins at or after `offset`,
  // nullopt for ENXIO. Stored files have holes where whole chunks are (the
  // store's, TreeEditor::SeekData); generated files are all data.
  Result<std::optional<uint64_t>> Seek(uint64_t ino, uint64_t fh, uint64_t offset, int whence);

  // Directories: the listing is taken at each read from offset 0 (the first
  // after opendir, and each after a rewinddir) and served by offset from it, so
  // entries made since opendir or rewinddir show, as POSIX asks.
  Result<uint64_t> OpenDir(uint64_t ino);
  Result<std::vector<DirItem>*> DirListing(uint64_t fh, uint64_t offset);
  // ".", ".." and the entries of directory `ino` (store or virtual).
  Result<std::vector<DirItem>> ListDir(uint64_t ino);
  Status ReleaseDir(uint64_t fh);
  Status SyncStore();

  Result<struct statvfs> StatFs();
  // The free space StatFs reports, in bytes.
  Result<uint64_t> FreeBytes();

  Status SetXattr(uint64_t ino, std::string_view name, std::string_view value, XattrMode mode);
  Result<std::string> GetXattr(uint64_t ino, std::string_view name);
  Result<std::vector<std::string>> ListXattrs(uint64_t ino);
  Status RemoveXattr(uint64_t ino, std::string_view name);

  // Hands every buffer whose oldest bytes were written before `now` -
  // max_buffer_age to the background writer (the 1 s syncer calls it before
  // SyncIfDirty), and retries write-outs that failed. Files with a write-out in
  // flight or a flush waiting for one are left to them.
  void WriteOutAged(std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now());
  // Work queued since the last sync reaches stable storage (the 1 s syncer).
  Status SyncIfDirty();
  // Every buffered write reaches the store and the store is synced (shutdown);
  // what cannot is logged as dropped.
  Status FlushAll();

 private:
  Filesystem(Store* store, Index* index, const FilesystemOptions& options,
             std::unique_ptr<WorkingTree> tree);

  Result<std::string> ReadVirtual(uint64_t ino, uint64_t fh, uint64_t offset, uint64_t length);
  // The size a read through handle `fh` of virtual file `ino` sees.
  Result<uint64_t> VirtualSize(uint64_t ino, uint64_t fh);
  Status Edit(const std::function<Status(TreeEditor&)>& edit);
  Status View(const std::function<Status(TreeEditor&)>& read);
  Status RefuseIfReadOnly(uint64_t ino) const;
  // kNoSpace when extending a file of `size` bytes to `end` needs more than `free_bytes`.
  static Status CheckRoom(uint64_t size, uint64_t end, uint64_t free_bytes);
  // What the store holds, without buffered writes.
  Result<Attributes> StoreAttr(uint64_t ino);
  // The file as its readers see it: store attributes with buffered writes applied.
  Result<Attributes> CurrentAttr(uint64_t ino);
  // `attr` as read from the store, corrected if the file has buffered writes.
  Result<Attributes> WithBuffer(const Attributes& attr);
  // Writes `ino`'s buffered bytes to the store; the returned guard (empty if
  // the inode is not open) keeps new writes out until the caller's change is made.
  Result<OpenInode::Guard> FlushAndHold(uint64_t ino);
  // Under memory pressure: flushes other files' buffers (their locks are taken
  // one at a time, never while holding another's).
  void FlushOthers(uint64_t except);
  // The last-link policy for an inode about to lose a link: keep it if open.
  TreeEditor::LastLink LastLinkFor(uint64_t ino) const;
  Result<OpenedFile> OpenHandle(uint64_t ino, int flags);
  // The same, for a caller that holds namespace_mu_ (shared).
  Result<OpenedFile> OpenHandleLocked(uint64_t ino, int flags);
  // O_TRUNC of `ino`, just opened as `fh`: its attributes after the truncate.
  // On failure the handle is released; `held` (namespace_mu_, may be null) is
  // let go first, as Release takes that lock itself.
  Result<Attributes> TruncateOpened(uint64_t ino, uint64_t fh, const Caller& caller,
                                    std::shared_lock<std::shared_mutex>* held);
  // Applies ModeAfterChangeBy to `ino`, whose stored attributes are `attr`,
  // before a change by `caller` buffers; `inode` remembers a file left without
  // such bits, so most writes skip this.
  Status DropPrivsBeforeWrite(uint64_t ino, const Attributes& attr, OpenInode& inode,
                              const Caller& caller);
  Result<std::string> PathOf(uint64_t ino);
  // Lookup of "." or ".." in `ino`: what exported file handles need.
  Result<Attributes> LookupForHandle(uint64_t ino, std::string_view name);
  // The attributes, with no links, of a directory removed while a handle still
  // has it open; nothing if none does.
  std::optional<Attributes> RemovedOpenDir(uint64_t ino);

  // user.vexfs.embedding.<model> and user.vexfs.passages (index_xattrs.cc).
  static bool IsIndexXattr(std::string_view name);
  Status SetIndexXattr(uint64_t ino, std::string_view name, std::string_view value);
  Result<std::string> GetIndexXattr(uint64_t ino, std::string_view name);

  Store* store_;
  Index* index_;
  FilesystemOptions options_;
  std::string branch_;
  std::unique_ptr<WorkingTree> tree_;
  std::unique_ptr<VirtualTree> virtual_tree_;
  // What every open inode's buffers share; before open_files_, which it outlives.
  BufferContext buffer_context_;
  OpenFiles open_files_;
  // Opens take it shared, unlink and rename exclusively: an inode cannot become
  // open between a remove's "is it open?" and its commit.
  std::shared_mutex namespace_mu_;

  struct Handle {
    uint64_t ino = 0;
    int flags = 0;
    std::string content;  // generated files of the virtual tree
  };
  std::mutex handles_mu_;
  uint64_t next_handle_ = 1;
  std::unordered_map<uint64_t, Handle> handles_;
  struct DirHandle {
    uint64_t ino = 0;
    bool listed = false;  // `items` holds the listing of the last read from offset 0
    std::vector<DirItem> items;
    Attributes attr;  // at opendir: what fstat sees once the directory is removed
  };
  std::unordered_map<uint64_t, DirHandle> dir_handles_;
  std::function<void(uint64_t ino)> on_mode_cleared_;  // set before serving

  std::atomic<bool> unsynced_{false};
  std::atomic<bool> relieving_{false};  // a FlushOthers is running
  // Last, so it is destroyed first: write-outs still queued (which hold their
  // OpenInode) run while the rest of the file system exists.
  WriteBehind write_behind_;
};

}  // namespace vexfs::fuse

#endif  // VEXFS_FUSE_FILESYSTEM_H_
