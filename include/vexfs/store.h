// VexFS store: durable, versioned agent memory in one directory.
//
// What it guarantees
// - LMDB is the single source of truth. Every call below runs in one LMDB
//   transaction: it happens entirely or not at all, whatever kills the process.
// - With StoreOptions::sync_on_commit (the default) a call that returned ok is on
//   stable storage: a crash of the process or the machine afterwards keeps it.
//   Without it, work is durable after Store::Sync() returns (docs/durability.md).
// - Objects (file chunks, manifests, trees, commits) are immutable and named by the
//   SHA-256 of their bytes; identical content is stored once. Every object read is
//   checked against its name, so a flipped byte surfaces as kCorruption, never as
//   wrong data.
// - Each branch has a mutable working tree (inodes, directory entries, xattrs,
//   chunk references). A snapshot writes tree objects only for directories and
//   files changed since the previous snapshot (dirty tracking), so its cost follows
//   the change, not the store.
//
// What it does not guarantee
// - Snapshots do not preserve hard-link identity or atime; restore recreates links
//   as separate files with equal content.
// - Inode numbers are per branch and change when a working tree is restored.
//
// Thread-safety: a Store and the WorkingTree/SnapshotView objects it hands out may be
// used from many threads at once. Many processes may open one store; writers are
// serialised by LMDB, readers never block. A process opens a store once: while it
// is open, another Open of the same directory in that process returns kBusy (a
// second LMDB environment on it would reset the lock table under the first), so
// share the Store. Do not use a Store across fork(): open it in the process that
// uses it.
#ifndef VEXFS_STORE_H_
#define VEXFS_STORE_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vexfs/paths.h"
#include "vexfs/status.h"
#include "vexfs/types.h"

// The public API: exported from libvexfs.so, which is built with hidden visibility.
#pragma GCC visibility push(default)

namespace vexfs {

class TreeEditor;

namespace internal {
class StoreImpl;
class TxnScope;
// How the store's own code reaches a Store's and an editor's insides (store_impl.h).
struct StoreAccess;
}  // namespace internal

struct StoreOptions {
  // Size of the LMDB memory map: the most the store can hold. Only address space
  // is reserved up front. Create() records it; Open() uses the recorded value
  // unless this is non-zero.
  uint64_t map_size = 0;
  // Sync to stable storage at every commit (see the header comment).
  bool sync_on_commit = true;
  // Refuse every write with kReadOnly.
  bool read_only = false;
};

// Default map size used by Create() when options.map_size is 0 (256 GiB).
inline constexpr uint64_t kDefaultMapSize = uint64_t{256} << 30;

// Progress of a long operation: `done` of `total` units (total 0 when unknown).
using ProgressFn = std::function<void(uint64_t done, uint64_t total)>;

// Path-based read access to one tree: a branch's working tree or a snapshot.
// Paths are relative to the tree's root, '/'-separated; "" and "/" name the root.
class TreeView {
 public:
  virtual ~TreeView() = default;
  virtual Result<Attributes> Stat(std::string_view path) = 0;
  // Entries sorted by name. kNotDirectory if path is not a directory.
  virtual Result<std::vector<DirEntry>> List(std::string_view path) = 0;
  // Up to `length` bytes from `offset`; short only at end of file.
  virtual Result<std::string> Read(std::string_view path, uint64_t offset,
                                   uint64_t length) = 0;
  Result<std::string> ReadAll(std::string_view path);
  virtual Result<std::string> ReadLink(std::string_view path) = 0;
  virtual Result<XattrMap> Xattrs(std::string_view path) = 0;
};

// Write operations on one working tree, all inside one transaction. Obtained only
// through WorkingTree::Edit(); valid only during that callback. Not thread-safe.
// Names are single path components; errors name the offending component.
class TreeEditor {
 public:
  struct NewNode {
    uint32_t mode = 0644;
    uint32_t uid = 0;
    uint32_t gid = 0;
  };
  enum RenameFlags : unsigned { kRenameDefault = 0, kRenameNoReplace = 1 };
  // What happens to a file whose last link an Unlink or a replacing Rename drops.
  enum class LastLink {
    kDelete,      // the inode and its data go at once
    kKeepOrphan,  // it stays, unlinked (nlink 0), until ReleaseOrphan: a file
                  // removed while a process still has it open
  };

  explicit TreeEditor(internal::TxnScope* scope) : scope_(scope) {}

  Result<Attributes> GetAttr(uint64_t ino);
  Result<Attributes> Lookup(uint64_t parent, std::string_view name);
  Result<uint64_t> ResolvePath(std::string_view path);
  // The path of `ino` by its first link ("" for the root); kNotFound for an
  // orphan or a missing inode.
  Result<std::string> PathOf(uint64_t ino);
  Result<std::vector<DirEntry>> ReadDir(uint64_t ino);
  // The same entries as their directory records them, without reading each
  // entry's inode: what a listing (readdir) needs, at a fraction of the cost.
  struct NameEntry {
    std::string name;
    uint64_t ino = 0;
    FileType type = FileType::kRegular;
  };
  Result<std::vector<NameEntry>> ListNames(uint64_t ino);

  // kAlreadyExists if `name` exists in `parent`; kInvalidArgument for a name
  // ValidateNewEntryName refuses (vexfs/paths.h), as for every new entry below.
  Result<Attributes> Mkdir(uint64_t parent, std::string_view name, const NewNode& node);
  Result<Attributes> CreateFile(uint64_t parent, std::string_view name,
                                const NewNode& node);
  Result<Attributes> Symlink(uint64_t parent, std::string_view name,
                             std::string_view target, const NewNode& node);
  Result<std::string> ReadLink(uint64_t ino);
  // A FIFO, socket, character or block device node: `type` must be one of the
  // special types (kInvalidArgument otherwise); `rdev` is kept for devices only.
  Result<Attributes> MakeSpecialFile(uint64_t parent, std::string_view name, FileType type,
                                     uint64_t rdev, const NewNode& node);
  // New hard link to the file `ino`. kNotSupported for directories.
  Result<Attributes> Link(uint64_t ino, uint64_t new_parent, std::string_view new_name);
  // Removes a non-directory entry; the inode goes with its last link unless
  // `last_link` keeps it as an orphan.
  Status Unlink(uint64_t parent, std::string_view name,
                LastLink last_link = LastLink::kDelete);
  // Removes an empty directory; kNotEmpty otherwise.
  Status Rmdir(uint64_t parent, std::string_view name);
  // POSIX rename: replaces a file, or an empty directory by a directory.
  Status Rename(uint64_t parent, std::string_view name, uint64_t new_parent,
                std::string_view new_name, unsigned flags = kRenameDefault,
                LastLink replaced_last_link = LastLink::kDelete);
  // renameat2(RENAME_EXCHANGE): swaps the two entries, which must both exist, in
  // one transaction. kInvalidArgument if a directory would end up inside itself.
  Status Exchange(uint64_t parent, std::string_view name, uint64_t new_parent,
                  std::string_view new_name);
  // Deletes `ino` if it is an orphan (no-op otherwise: it was linked again or is
  // already gone). Orphans are in no snapshot and are never indexed.
  Status ReleaseOrphan(uint64_t ino);
  // Deletes every orphan of this working tree (after a restart no process can
  // hold one open). Returns how many went.
  Result<uint64_t> PurgeOrphans();

  Result<std::string> Read(uint64_t ino, uint64_t offset, uint64_t length);
  // The same bytes without copying them: views, in order, into the store's map
  // (chunks stored raw), into `owned` (chunks that were compressed) or into a
  // static block of zeros (holes). Every chunk is verified as for Read. The views
  // are valid until the transaction ends and `owned` is destroyed.
  struct ByteViews {
    std::vector<std::string_view> views;
    std::deque<std::string> owned;  // a deque: views into it survive its growth
    uint64_t size = 0;              // total length of `views`
    std::string Join() const;       // the bytes, copied into one string
  };
  Status ReadViews(uint64_t ino, uint64_t offset, uint64_t length, ByteViews* out);
  // Writes at any offset; a gap reads back as zeros. Updates size and mtime.
  Status Write(uint64_t ino, uint64_t offset, std::string_view data);
  Status Truncate(uint64_t ino, uint64_t size);
  // Replaces the whole content of a regular file.
  Status ReplaceContent(uint64_t ino, std::string_view data);
  // Zeros bytes [offset, offset + length) that lie inside the file, keeping its
  // size (fallocate's punch hole); whole chunks become holes.
  Status ZeroRange(uint64_t ino, uint64_t offset, uint64_t length);
  // Copies up to `length` bytes from `src` at `src_offset` to `dst` at
  // `dst_offset` (extending it as needed) and returns how many it copied: 0 at
  // or past the source's end, and possibly fewer than asked (call again). When
  // both offsets are chunk-aligned the chunks are shared, not copied.
  // kInvalidArgument for overlapping ranges of one file.
  Result<uint64_t> CopyRange(uint64_t src, uint64_t src_offset, uint64_t dst,
                             uint64_t dst_offset, uint64_t length);

  // lseek's SEEK_DATA and SEEK_HOLE: the first offset >= `offset` where data
  // begins, or where a hole begins. Holes are whole chunks that store nothing
  // (chunks of zeros are stored that way), and the end of the file is a hole.
  // nullopt (lseek's ENXIO) when `offset` is at or past the end of the file, or
  // no data follows it.
  Result<std::optional<uint64_t>> SeekData(uint64_t ino, uint64_t offset);
  Result<std::optional<uint64_t>> SeekHole(uint64_t ino, uint64_t offset);

  struct AttrChange {
    std::optional<uint32_t> mode;
    std::optional<uint32_t> uid;
    std::optional<uint32_t> gid;
    std::optional<TimeNs> atime;
    std::optional<TimeNs> mtime;
  };
  Result<Attributes> SetAttr(uint64_t ino, const AttrChange& change);

  Result<std::string> GetXattr(uint64_t ino, std::string_view name);
  Result<XattrMap> ListXattrs(uint64_t ino);
  Status SetXattr(uint64_t ino, std::string_view name, std::string_view value);
  Status RemoveXattr(uint64_t ino, std::string_view name);

  // Creates every missing directory on `path` (like mkdir -p); returns the last.
  Result<uint64_t> MakeDirs(std::string_view path, const NewNode& node);
  // Writes `data` as the file at `path`, creating it and missing parents.
  Result<Attributes> PutFile(std::string_view path, std::string_view data,
                             const NewNode& node);

 private:
  friend struct internal::StoreAccess;
  internal::TxnScope* scope_;
};

// One branch's mutable working tree. Cheap to create; holds no transaction.
class WorkingTree : public TreeView {
 public:
  WorkingTree(internal::StoreImpl* impl, std::string branch)
      : impl_(impl), branch_(std::move(branch)) {}

  const std::string& branch() const { return branch_; }

  // Runs `edit` inside one write transaction and commits it if `edit` returns ok;
  // otherwise nothing it did is kept. Holds the store's single writer slot while it
  // runs, so keep it short.
  Status Edit(const std::function<Status(TreeEditor&)>& edit);
  // Runs `read` inside one read transaction (a consistent view). Writes fail.
  Status View(const std::function<Status(TreeEditor&)>& read);

  Result<Attributes> Stat(std::string_view path) override;
  Result<std::vector<DirEntry>> List(std::string_view path) override;
  Result<std::string> Read(std::string_view path, uint64_t offset,
                           uint64_t length) override;
  Result<std::string> ReadLink(std::string_view path) override;
  Result<XattrMap> Xattrs(std::string_view path) override;

 private:
  internal::StoreImpl* impl_;
  std::string branch_;
};

// A read-only view of one snapshot, read in place from its objects.
class SnapshotView : public TreeView {
 public:
  SnapshotView(internal::StoreImpl* impl, ObjectId commit, ObjectId root_tree)
      : impl_(impl), commit_(commit), root_tree_(root_tree) {}
  const ObjectId& commit() const { return commit_; }

  Result<Attributes> Stat(std::string_view path) override;
  Result<std::vector<DirEntry>> List(std::string_view path) override;
  Result<std::string> Read(std::string_view path, uint64_t offset,
                           uint64_t length) override;
  Result<std::string> ReadLink(std::string_view path) override;
  Result<XattrMap> Xattrs(std::string_view path) override;

 private:
  internal::StoreImpl* impl_;
  ObjectId commit_;
  ObjectId root_tree_;
};

struct CommitInfo {
  ObjectId id;
  ObjectId tree;
  std::vector<ObjectId> parents;
  TimeNs time = 0;
  std::string branch;   // the branch it was taken on
  std::string message;
  std::map<std::string, std::string> meta;
  std::vector<std::string> names;  // snapshot names pointing at it
  // Roots besides the file tree: extension name -> root object of its data.
  std::map<std::string, ObjectId> roots;
};

struct BranchInfo {
  std::string name;
  std::optional<ObjectId> head;  // last snapshot taken on it, if any
  bool current = false;          // HEAD names it
};

struct DiffEntry {
  enum class Kind { kAdded, kRemoved, kModified, kRenamed, kTypeChanged };
  Kind kind;
  std::string path;      // the new path (the old one for kRemoved)
  std::string old_path;  // only for kRenamed
  FileType type = FileType::kRegular;
  // Empty for a file-tree change. Otherwise the name of another root (an
  // extension's versioned data) that was added, removed or modified; `path` is
  // then empty. Only snapshots carry such roots: a diff with WORKING has none.
  std::string root;
};
const char* DiffKindName(DiffEntry::Kind kind);  // "added", "removed", ...

struct GcReport {
  uint64_t objects_kept = 0;
  uint64_t objects_freed = 0;
  uint64_t bytes_freed = 0;  // stored (possibly compressed) bytes
};

struct FsckReport {
  uint64_t objects_checked = 0;
  uint64_t refs_checked = 0;
  uint64_t inodes_checked = 0;
  std::vector<std::string> problems;  // empty means the store is sound
  bool ok() const { return problems.empty(); }
};

struct StoreStats {
  uint64_t objects = 0;
  uint64_t object_bytes = 0;  // stored bytes of all objects
  uint64_t map_size = 0;
  uint64_t map_used = 0;      // bytes of the map in use (last page * page size)
};

class Store {
 public:
  // Creates a new store in directory `path` (created if missing, must be empty or
  // absent). kAlreadyExists if a store is already there.
  static Result<std::unique_ptr<Store>> Create(const std::string& path,
                                               const StoreOptions& options = {});
  // Opens an existing store. kNotFound if `path` holds no store; kBusy if this
  // process has it open already.
  static Result<std::unique_ptr<Store>> Open(const std::string& path,
                                             const StoreOptions& options = {});
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  const std::string& path() const;
  // Grows with every write transaction committed to the store, by any process;
  // equal values mean nothing changed in between (caches key on it).
  uint64_t LastCommitId() const;

  // Branches. Names: 1-255 bytes of [A-Za-z0-9._-], not starting with '.', not
  // "WORKING". A new store has branch "main", checked out.
  Result<std::string> CurrentBranch();
  Result<std::vector<BranchInfo>> ListBranches();
  // New branch from a snapshot, or (no snapshot) a copy of `from_branch`'s working
  // tree ("" = the current branch's) including changes not yet snapshotted. A
  // front end serving one branch passes it, so "branch from here" means from
  // what it serves. The current branch does not change.
  Status CreateBranch(std::string_view name, std::optional<std::string> from_snapshot,
                      std::string_view from_branch = "");
  Status Checkout(std::string_view branch);
  // Deletes a branch and its working tree (its snapshots stay): not the current
  // one (kInvalidArgument), nor one a writable mount serves (kBusy).
  Status DeleteBranch(std::string_view branch);

  // The working tree of `branch` ("" means the current branch).
  Result<std::unique_ptr<WorkingTree>> Tree(std::string_view branch = "");

  // Snapshots ("cognitive commits"). Takes a snapshot of `branch`'s working tree
  // ("" = current), names it `name` (unique across the store), and makes it the
  // branch's head. The parent is the branch's previous head.
  Result<CommitInfo> CreateSnapshot(std::string_view name, std::string_view message,
                                    const std::map<std::string, std::string>& meta,
                                    std::string_view branch = "");
  // Gives an existing snapshot another name (a tag).
  Status TagSnapshot(std::string_view new_name, std::string_view existing);
  // Removes a name; the commit stays while anything reaches it (see Gc()).
  Status DeleteSnapshotName(std::string_view name);
  // Named snapshots, oldest first.
  Result<std::vector<CommitInfo>> ListSnapshots();
  // A snapshot by name, or by full 64-digit commit id.
  Result<CommitInfo> ResolveSnapshot(std::string_view name_or_id);
  // History from a branch's head ("" = current) or a snapshot, newest first.
  Result<std::vector<CommitInfo>> Log(std::string_view branch_or_snapshot = "",
                                      size_t limit = 0);
  Result<std::unique_ptr<SnapshotView>> OpenSnapshot(std::string_view name_or_id);
  // What a read command reads: the snapshot `at` when it is not empty (`branch` is
  // then ignored), else the working tree of `branch` ("" = current). Errors as
  // OpenSnapshot or Tree.
  Result<std::unique_ptr<TreeView>> OpenView(std::string_view at, std::string_view branch = "");

  // Differences from A to B; each is a snapshot name/id or "WORKING" (the
  // current branch's working tree). Equal subtrees are skipped by hash; a removed
  // and an added file with equal content are reported as one rename.
  Result<std::vector<DiffEntry>> Diff(std::string_view a, std::string_view b);

  // Makes `branch`'s working tree ("" = current) equal to the snapshot. The branch
  // head does not move, so the next snapshot records the return as a new change.
  Status Restore(std::string_view snapshot, std::string_view branch = "");

  // Deletes every object that no ref and no working tree reaches.
  Result<GcReport> Gc(const ProgressFn& progress = nullptr);
  // Verifies every object's hash and decoding, every reference between objects and
  // from refs and working trees. Never fails on a bad store: problems are reported.
  Result<FsckReport> Fsck(const ProgressFn& progress = nullptr);
  Result<StoreStats> Stats();
  // Flushes committed work to stable storage (needed only without sync_on_commit).
  Status Sync();

  // An extension of the store reaches its tables through vexfs/extension.h.

 private:
  friend struct internal::StoreAccess;
  explicit Store(std::unique_ptr<internal::StoreImpl> impl);
  std::unique_ptr<internal::StoreImpl> impl_;
};

}  // namespace vexfs

#pragma GCC visibility pop

#endif  // VEXFS_STORE_H_
