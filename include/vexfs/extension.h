// The store's extension interface: how a component above the store (the search
// index, the memory graph, a program of the user's) keeps its own data in a
// VexFS store without the store knowing it. Modelled on RocksDB's column
// families, adapted to a versioned file store. An extension
//   - registers named tables (RegisterTables), which it reads and writes inside
//     the store's own transactions (StoreTxn), so its records commit atomically
//     with the file changes they describe (TransactionOf a TreeEditor);
//   - subscribes to the change feed (StoreTxn::Subscribe), a durable set of what
//     write transactions changed that it has not consumed yet;
//   - while attached to an open store (AttachExtension), contributes gc roots
//     (objects its records keep alive) and fsck checks of its records;
//   - if it versions data, adds a root of its own to every snapshot (an object
//     it stored with PutNode or PutBlob) and rebuilds its working data from a
//     snapshot's root on restore, so one snapshot covers files and its data.
// Table and subscription registrations are durable, so they hold in every
// process that opens the store, including processes that never load the
// extension's code: the store deletes and copies an extension's per-inode and
// per-branch records with their inode or branch on its own. A process sees new
// subscriptions at its next write, but tables registered by another process only
// at its next open: register an extension's tables when the store is created or
// first opened with it, before other processes write.
//
// Gc and fsck hooks are code, so they act only where the extension is attached:
// gc refuses to run where a registered extension that keeps objects alive is not
// attached (it would delete its objects), and snapshots and restores refuse where
// one that versions data is not (they would leave its data out).
//
// docs/architecture.md ("Extending the store") shows the search index as the
// worked example; docs/format.md gives the tables' layout on disk.
#ifndef VEXFS_EXTENSION_H_
#define VEXFS_EXTENSION_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vexfs/status.h"
#include "vexfs/store.h"
#include "vexfs/types.h"

// The public API: exported from libvexfs.so, which is built with hidden visibility.
#pragma GCC visibility push(default)

namespace vexfs {

namespace internal {
class Cursor;
struct StoreTxnAccess;
}  // namespace internal

// What the store does with a registered table's records on its own.
enum class TableScope : uint8_t {
  // The store never touches them.
  kGlobal = 0,
  // Keys begin with InodeKeyPrefix(branch, ino): the records belong to that inode
  // of that working tree. They go when the inode is deleted or orphaned, when the
  // working tree is replaced (restore) or the branch deleted, and are copied when
  // the branch's working tree is copied to a new branch.
  kPerInode = 1,
  // Keys begin with BranchKeyPrefix(branch): one working tree's state. They go
  // when the working tree is replaced or the branch deleted, and are copied when
  // the branch's working tree is copied to a new branch.
  kPerBranch = 2,
};

struct TableSpec {
  std::string name;  // 1-64 bytes of [a-z0-9_], unique per store, not the store's own
  TableScope scope = TableScope::kGlobal;
};

// A registered table of one open store; valid while that store is open.
class Table {
 public:
  constexpr Table() = default;
  constexpr explicit Table(uint32_t handle) : handle_(handle) {}
  uint32_t handle() const { return handle_; }
  // A table a read-only store does not have (the extension never ran on it):
  // it reads as empty and refuses writes.
  bool absent() const { return handle_ == 0; }
  friend bool operator==(Table a, Table b) = default;

 private:
  uint32_t handle_ = 0;
};

// Key prefixes of per-branch and per-inode tables (be32 branch, be64 ino).
std::string BranchKeyPrefix(uint32_t branch);
std::string InodeKeyPrefix(uint32_t branch, uint64_t ino);
// The (branch, ino) an InodeKeyPrefix key begins with; false if it is too short.
bool DecodeInodeKeyPrefix(std::string_view key, uint32_t* branch, uint64_t* ino);

// A working tree: its branch name and the id its per-branch keys use.
struct BranchRef {
  std::string name;
  uint32_t id = 0;
};

// One entry of a stored (snapshot) directory. `id` is the entry's object: a
// tree for a directory, the file version for a regular file (see FileVersion).
struct StoredEntry {
  std::string name;
  Attributes attr;  // ino is 0: snapshots have no inodes
  ObjectId id;
};

// A node object: references to other objects (which gc keeps alive with it)
// and bytes of the extension's own.
struct StoredNode {
  std::vector<ObjectId> refs;
  std::string data;
};

class FeedSubscription;

// A transaction on a store. A write transaction excludes every other writer of
// the store (processes included) until it commits or ends; a read transaction
// sees the store as of its start and never blocks. Destruction aborts it unless
// Commit() succeeded. Not thread-safe: one thread uses a transaction at a time.
//
// A transaction begun with BeginOnBranch, or handed to an extension's hooks or
// by TransactionOf, is bound to one working tree, and the file functions below
// read that tree. Views returned by Get stay valid until the transaction ends or
// the next write to that key.
class StoreTxn {
 public:
  StoreTxn();
  ~StoreTxn();
  StoreTxn(StoreTxn&& other) noexcept;
  StoreTxn& operator=(StoreTxn&& other) noexcept;
  StoreTxn(const StoreTxn&) = delete;
  StoreTxn& operator=(const StoreTxn&) = delete;

  Status Begin(Store* store, bool write);
  // Bound to the working tree of `branch` ("" = the branch HEAD names).
  Status BeginOnBranch(Store* store, bool write, std::string_view branch);
  // kInvalidArgument for a transaction that was lent (TransactionOf, hooks):
  // its owner commits it.
  Status Commit();
  // Ends an owned transaction without its writes; a no-op for a lent one.
  void Abort();
  bool active() const;
  bool writable() const;

  // Records of registered tables.
  Result<std::optional<std::string_view>> Get(Table table, std::string_view key) const;
  Status Put(Table table, std::string_view key, std::string_view value);
  // True if it inserted, false if the key existed (its value untouched).
  Result<bool> PutIfAbsent(Table table, std::string_view key, std::string_view value);
  // True if it deleted, false if the key was absent.
  Result<bool> Delete(Table table, std::string_view key);
  Status DeletePrefix(Table table, std::string_view prefix);
  // Every key/value with `prefix`, in key order.
  Result<std::vector<std::pair<std::string, std::string>>> Scan(Table table,
                                                                std::string_view prefix) const;

  // Format 1 kept some extensions' settings in the store's own settings table.
  // These read and remove one (a key of [a-z0-9_] that is not the store's own),
  // so its extension can move it into tables of its own.
  Result<std::optional<std::string>> ReadLegacySetting(std::string_view key) const;
  Status DeleteLegacySetting(std::string_view key);

  // The change feed: subscribes `name` (1-64 bytes of [a-z0-9_]); the bool is
  // true for a new subscription, which has missed every change before it.
  Result<std::pair<FeedSubscription, bool>> Subscribe(std::string_view name);
  // The subscription of `name`, or nullopt if it never subscribed.
  Result<std::optional<FeedSubscription>> FindSubscription(std::string_view name) const;
  // Ends subscription `name` and drops what waits in its set (a no-op if it
  // does not exist): for an extension that is removed from the store.
  Status Unsubscribe(std::string_view name);

  // Branches and snapshots.
  Result<std::vector<BranchRef>> Branches() const;
  // Every named snapshot's commit id (a commit named twice appears twice).
  Result<std::vector<ObjectId>> SnapshotCommits() const;
  // A snapshot name, or the 64 hex digits of a commit that exists.
  Result<ObjectId> ResolveCommit(std::string_view name_or_id) const;
  // The root directory tree of `commit`; kNotFound or kCorruption if it cannot be read.
  Result<ObjectId> CommitTree(const ObjectId& commit) const;
  Result<std::vector<StoredEntry>> ReadTree(const ObjectId& tree) const;
  // True if the root directory of branch `id`'s working tree has no entries.
  Result<bool> WorkingTreeIsEmpty(uint32_t branch) const;

  // File versions: a regular file's content and xattrs, named by the id its
  // manifest has (or would have) in a snapshot. Equal files share one version.
  // kNotFound if no such version is stored.
  Result<uint64_t> VersionSize(const ObjectId& version) const;
  // Bytes [offset, offset + length) of a stored version, fewer at its end.
  Result<std::string> ReadVersion(const ObjectId& version, uint64_t offset,
                                  uint64_t length) const;
  Result<XattrMap> VersionXattrs(const ObjectId& version) const;

  // Inodes of any branch's working tree.
  Result<std::optional<Attributes>> FindInode(uint32_t branch, uint64_t ino) const;
  Result<std::vector<Attributes>> ListInodes(uint32_t branch) const;
  Result<XattrMap> InodeXattrs(uint32_t branch, uint64_t ino) const;

  // The bound working tree (kInvalidArgument for an unbound transaction).
  uint32_t branch_id() const;
  const std::string& branch_name() const;
  Result<uint64_t> Resolve(std::string_view path);
  Result<Attributes> Stat(uint64_t ino);
  // A directory's entries as it records them (names, inode numbers, types).
  Result<std::vector<TreeEditor::NameEntry>> ListDir(uint64_t ino);
  // The id of a regular file's current version (what a snapshot would store).
  Result<ObjectId> FileVersion(uint64_t ino);
  // Bytes of a working file, fewer at its end.
  Result<std::string> ReadFile(uint64_t ino, uint64_t offset, uint64_t length);

  // Objects of a versioning extension's snapshot roots (write transactions).
  Result<ObjectId> PutBlob(std::string_view bytes);
  Result<ObjectId> PutNode(const StoredNode& node);
  Result<std::string> GetBlob(const ObjectId& id) const;
  Result<StoredNode> GetNode(const ObjectId& id) const;

 private:
  friend struct internal::StoreTxnAccess;
  struct Rep;
  std::unique_ptr<Rep> rep_;
};

// Iterates a table's keys in order. Views stay valid until the cursor moves.
// A cursor must not outlive its transaction (a write transaction's cursors end
// at its commit).
class TableCursor {
 public:
  TableCursor();
  ~TableCursor();
  TableCursor(const TableCursor&) = delete;
  TableCursor& operator=(const TableCursor&) = delete;

  Status Open(const StoreTxn& txn, Table table);
  // Positions at the first key >= `key`. False at the end.
  Result<bool> Seek(std::string_view key);
  Result<bool> First();
  Result<bool> Next();
  std::string_view key() const;
  std::string_view value() const;
  // Deletes the current entry; the next Next() returns the entry after it.
  Status DeleteCurrent();

 private:
  std::unique_ptr<internal::Cursor> cursor_;
};

// What the store posts to the change feed. Entries begin with their kind; a
// subscriber may post work items of its own to its own set with another first
// byte.
enum class ChangeKind : char {
  kFile = 'f',      // + InodeKeyPrefix: a working-tree file changed, or an inode went away
  kTree = 'b',      // + BranchKeyPrefix: a working tree was replaced or created; rescan it
  kSnapshot = 'c',  // + 32-byte commit id: a snapshot taken while the subscriber still
                    //   had changes of its branch to consume
};
std::string FileChangeEntry(uint32_t branch, uint64_t ino);
std::string TreeChangeEntry(uint32_t branch);
std::string SnapshotChangeEntry(const ObjectId& commit);

// One entry waiting in a subscriber's set, with the stamp of the transaction
// that last posted it.
struct FeedItem {
  std::string entry;
  std::string stamp;
};

// One subscriber's set of changes. Entries form a set, not a log: a file changed
// a thousand times before its subscriber looks is one entry. A subscriber
// consumes an entry only if nobody posted it again since it read it, so a change
// that lands while it works is never lost.
class FeedSubscription {
 public:
  FeedSubscription() = default;
  FeedSubscription(Table feed, uint16_t id) : feed_(feed), id_(id) {}
  bool valid() const { return id_ != 0; }

  // Adds `entry` (or re-stamps it) in this subscriber's set. Posting and
  // consuming need a write transaction and a valid subscription.
  Status Post(StoreTxn* txn, std::string_view entry) const;
  // Removes `entry` if its stamp is still `stamp`; true if it did.
  Result<bool> ConsumeIfUnchanged(StoreTxn* txn, std::string_view entry,
                                  std::string_view stamp) const;
  // Up to `limit` entries beginning with `prefix` ("" = any), in order.
  Result<std::vector<FeedItem>> Peek(const StoreTxn& txn, std::string_view prefix,
                                     size_t limit) const;
  Result<uint64_t> Pending(const StoreTxn& txn) const;

 private:
  Table feed_;
  uint16_t id_ = 0;
};

// The code half of an extension, attached to one open store. Hooks are called
// from whichever thread runs gc, fsck, a snapshot or a restore, inside that
// operation's transaction: an implementation must be thread-safe and must not
// begin transactions of its own.
class Extension {
 public:
  virtual ~Extension() = default;
  // 1-64 bytes of [a-z0-9_]; the name its registration is recorded under.
  virtual const std::string& name() const = 0;
  // Whether its records reference objects that must survive gc. Recorded
  // durably at attach: gc refuses to run where such an extension is not attached.
  virtual bool keeps_objects() const { return false; }
  // Appends the ids of objects its records keep alive (gc marks everything they
  // reference too). An error stops gc, which then deletes nothing.
  virtual Status AddGcRoots(const StoreTxn& txn, std::vector<ObjectId>* roots) {
    (void)txn;
    (void)roots;
    return Status::Ok();
  }
  // Checks its own records, appending a sentence per problem to report->problems.
  // An error means its records could not be read at all.
  virtual Status Check(const StoreTxn& txn, FsckReport* report) {
    (void)txn;
    (void)report;
    return Status::Ok();
  }

  // Whether it versions data in snapshots (the hooks below). Recorded durably at
  // attach like keeps_objects.
  virtual bool versions_data() const { return false; }
  // Inside a snapshot's write transaction, bound to the snapshot's branch: the
  // root of that branch's current data (an object it stored), or nullopt when it
  // has none. An error fails the snapshot.
  virtual Result<std::optional<ObjectId>> SnapshotRoot(StoreTxn& txn) {
    (void)txn;
    return std::optional<ObjectId>();
  }
  // Inside the write transaction of a restore or of a branch made from a
  // snapshot, bound to that branch, after its working tree was replaced (its
  // per-branch and per-inode records are gone): makes the branch's data that of
  // `root`, the snapshot's root of this extension (nullopt: the snapshot had none).
  virtual Status RestoreRoot(StoreTxn& txn, const std::optional<ObjectId>& root) {
    (void)txn;
    (void)root;
    return Status::Ok();
  }
};

// Registers `specs` durably in `store` (creating the tables that are missing)
// and returns their handles, in order. Idempotent. kInvalidArgument for a bad
// name, one of the store's own, or a name registered before with another scope.
// On a read-only store it only opens tables that exist (the others are absent).
// Call it outside any write transaction of the calling thread.
Result<std::vector<Table>> RegisterTables(Store* store, const std::vector<TableSpec>& specs);

// Attaches an extension's hooks to this open store and records its flags
// durably. kAlreadyExists if one of that name is attached. Outside any write
// transaction of the calling thread.
Status AttachExtension(Store* store, std::shared_ptr<Extension> extension);
// The attached extension `name`, or null.
std::shared_ptr<Extension> FindExtension(Store* store, std::string_view name);

// Whether `store` was opened read-only (or its files are).
bool IsReadOnly(Store* store);

// An extension whose registration the store records (AttachExtension), in this
// or any other process, with the flags it recorded and whether this open store
// has it attached.
struct ExtensionRegistration {
  std::string name;
  bool keeps_objects = false;
  bool versions_data = false;
  bool attached = false;
};
// Every recorded registration, by name. kCorruption for a malformed record.
Result<std::vector<ExtensionRegistration>> RegisteredExtensions(Store* store);

// Wakes a thread when a write transaction commits to the store, in this process
// or any other: what lets background work follow the store's own commits
// instead of every writer remembering to notify it. It watches the store's data
// file with inotify (every commit writes it) and compares the store's commit
// counter (LMDB's transaction id), so a wake-up is never missed: a commit that
// lands between two waits is seen by the next. Where the file system reports no
// changes (a network file system), Wait still returns at its timeout.
//
// Thread-safety: one thread waits at a time; Interrupt() and LastCommit() may be
// called from any thread.
class CommitWatch {
 public:
  // kIOError if the watch cannot be set up (no inotify instances left).
  static Result<std::unique_ptr<CommitWatch>> Open(Store* store);
  ~CommitWatch();
  CommitWatch(const CommitWatch&) = delete;
  CommitWatch& operator=(const CommitWatch&) = delete;

  // The counter of the store's latest committed write transaction; it grows
  // with every commit, by any process.
  uint64_t LastCommit() const;
  // Returns the counter once it is past `seen`, once Interrupt() was called
  // (it then stays interrupted until ClearInterrupt()), or after `timeout_ms`.
  uint64_t WaitPast(uint64_t seen, int timeout_ms);
  void Interrupt();
  void ClearInterrupt();
  bool interrupted() const;

 private:
  struct Rep;
  explicit CommitWatch(std::unique_ptr<Rep> rep);
  std::unique_ptr<Rep> rep_;
};

// The transaction of an edit (WorkingTree::Edit or View), bound to its working
// tree: what an extension writes through it commits or vanishes with the edit.
// Valid while the edit runs; lent, so Commit() refuses.
StoreTxn TransactionOf(TreeEditor& editor);

}  // namespace vexfs

#pragma GCC visibility pop

#endif  // VEXFS_EXTENSION_H_
