// Private core of the store: the open LMDB environment (StoreImpl) and one
// transaction bound to one branch's working tree (TxnScope), with the record-level
// helpers every working-tree operation is built from.
#ifndef VEXFS_STORE_STORE_IMPL_H_
#define VEXFS_STORE_STORE_IMPL_H_

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "store/extension.h"
#include "store/lmdb.h"
#include "store/objects.h"
#include "store/records.h"
#include "vexfs/store.h"

namespace vexfs::internal {

class StoreImpl {
 public:
  StoreImpl(std::string path, StoreOptions options)
      : path_(std::move(path)), options_(options) {}

  const std::string& path() const { return path_; }
  const StoreOptions& options() const { return options_; }
  LmdbEnv& lmdb() { return lmdb_; }
  const Databases& dbs() const { return lmdb_.dbs(); }

  Status BeginTxn(Txn* txn, bool write) { return txn->Begin(lmdb_, write); }

  // Extension tables (extension.h). Opens every table the store's registry
  // records; called once, right after the environment opens.
  Status OpenRegisteredTables();
  // Registers `specs` durably (creating the tables that are missing) and returns
  // their handles, in order. Idempotent. kInvalidArgument for a bad name or a
  // name registered before with another scope. On a read-only store it only
  // opens tables that exist; one that does not is kAbsentTable (read as empty).
  Result<std::vector<MDB_dbi>> RegisterTables(const std::vector<TableSpec>& specs);
  // The open registered tables: an immutable snapshot, safe to keep.
  std::shared_ptr<const std::vector<RegisteredTable>> tables() const;

  // Attaches an extension's gc and fsck hooks to this open store and records its
  // registration (with keeps_objects). kAlreadyExists if one of that name is.
  Status Attach(std::shared_ptr<Extension> extension);
  std::shared_ptr<Extension> FindExtension(std::string_view name) const;
  std::vector<std::shared_ptr<Extension>> extensions() const;
  // Every extension registration recorded in the store (extension.h).
  Result<std::vector<ExtensionRegistration>> RegisteredExtensions();

 private:
  Result<MDB_dbi> OpenTable(Txn* txn, const TableSpec& spec, bool create);

  std::string path_;
  StoreOptions options_;
  LmdbEnv lmdb_;
  // Lock order: registration_mu_, then LMDB's writer lock, then registry_mu_.
  // registration_mu_ serialises registrations (LMDB allows one transaction at a
  // time to use mdb_dbi_open); registry_mu_ guards the two lists below and is
  // held only to copy or swap them. Registering or attaching from inside a write
  // transaction of the same thread would wait for itself: do it before.
  std::mutex registration_mu_;
  mutable std::mutex registry_mu_;
  std::shared_ptr<const std::vector<RegisteredTable>> tables_ =  // guarded by registry_mu_
      std::make_shared<const std::vector<RegisteredTable>>();
  std::vector<std::shared_ptr<Extension>> extensions_;          // guarded by registry_mu_
};

// The store's own way into a Store and a TreeEditor (friends of both).
struct StoreAccess {
  static StoreImpl* Impl(Store& store) { return store.impl_.get(); }
  static TxnScope* Scope(TreeEditor& editor) { return editor.scope_; }
};
inline StoreImpl* ImplOf(Store* store) { return StoreAccess::Impl(*store); }
// The transaction behind an editor.
inline TxnScope* ScopeOf(TreeEditor& editor) { return StoreAccess::Scope(editor); }

// Deletes the records of (branch, ino) from every per-inode extension table.
Status DeleteInodeRecords(Txn* txn, const std::vector<RegisteredTable>& tables,
                          uint32_t branch, uint64_t ino);
// kNotSupported if a registered extension that keeps objects alive is not
// attached to `impl` (gc must not run without its roots).
Status RequireObjectKeepers(const Txn& txn, const StoreImpl& impl);
// kNotSupported if a registered extension that versions data is not attached.
Status RequireVersioners(const Txn& txn, const StoreImpl& impl);

// Refs: HEAD, branches and snapshot names.
Result<std::string> ReadHead(const Txn& txn, const Databases& dbs);
Result<std::optional<BranchRecord>> FindBranch(const Txn& txn, const Databases& dbs,
                                               std::string_view name);
Result<BranchRecord> LoadBranch(const Txn& txn, const Databases& dbs, std::string_view name);
Status SaveBranch(Txn* txn, const Databases& dbs, std::string_view name,
                  const BranchRecord& rec);
Result<std::optional<ObjectId>> FindSnapshot(const Txn& txn, const Databases& dbs,
                                             std::string_view name);
// A snapshot name, or a 64-digit commit id that exists.
Result<ObjectId> ResolveCommit(const Txn& txn, const Databases& dbs,
                               std::string_view name_or_id);
// Every key/value with `prefix` in `dbi`, in key order.
Result<std::vector<std::pair<std::string, std::string>>> ScanPrefix(const Txn& txn,
                                                                    MDB_dbi dbi,
                                                                    std::string_view prefix);
// Deletes every key with `prefix` in `dbi`.
Status DeletePrefix(Txn* txn, MDB_dbi dbi, std::string_view prefix);

// One transaction on one branch's working tree. Not thread-safe.
class TxnScope {
 public:
  explicit TxnScope(StoreImpl* impl) : impl_(impl) {}

  // Begins the transaction and loads `branch` ("" = the branch HEAD names).
  Status Begin(bool write, std::string_view branch);
  // Saves the branch record if it changed and commits.
  Status Commit();
  // Saves the current branch record if it changed, then works on `branch` within
  // the same transaction.
  Status SwitchBranch(std::string_view branch);

  Txn& txn() { return txn_; }
  const Databases& dbs() const { return impl_->dbs(); }
  StoreImpl* impl() { return impl_; }
  ObjectTable objects() { return ObjectTable(&txn_, dbs().objects); }
  uint32_t branch_id() const { return branch_.id; }
  const std::string& branch_name() const { return branch_name_; }
  BranchRecord& branch() { return branch_; }
  void MarkBranchChanged() { branch_changed_ = true; }

  // Inodes.
  Result<InodeRecord> LoadInode(uint64_t ino);
  Result<InodeRecord> LoadDir(uint64_t ino);  // kNotDirectory unless a directory
  Status SaveInode(uint64_t ino, const InodeRecord& rec);
  uint64_t AllocateIno();
  // Removes the inode with its chunks and xattrs.
  Status DeleteInode(uint64_t ino);
  // Orphans: files whose last link went while they were open (TreeEditor::LastLink).
  Status MakeOrphan(uint64_t ino);
  Result<bool> IsOrphan(uint64_t ino);
  Result<std::vector<uint64_t>> ListOrphans();
  // Marks `ino` and (by the invariant in InodeRecord) its ancestors dirty.
  Status MarkDirty(uint64_t ino);
  // Clears the change state after a snapshot or restore: clean, cached as `id`.
  Status MarkClean(uint64_t ino, const ObjectId& id);

  // Directory entries.
  Result<std::optional<DirentValue>> FindEntry(uint64_t parent, std::string_view name);
  Status PutEntry(uint64_t parent, std::string_view name, const DirentValue& value);
  Status DeleteEntry(uint64_t parent, std::string_view name);
  Result<std::vector<std::pair<std::string, DirentValue>>> ListEntries(uint64_t parent);
  Result<bool> DirIsEmpty(uint64_t ino);

  // Path resolution (no symlinks are followed).
  Result<uint64_t> Resolve(std::string_view path);

  // File chunks: id of chunk `index`, or nullopt for a hole.
  Result<std::optional<ObjectId>> GetChunk(uint64_t ino, uint64_t index);
  Status SetChunk(uint64_t ino, uint64_t index, const std::optional<ObjectId>& id);
  Result<std::vector<std::pair<uint64_t, ObjectId>>> ListChunks(uint64_t ino);
  // The first chunk index >= `index` that stores bytes (nullopt: none does), and
  // the first that does not (a hole, or past the last chunk).
  Result<std::optional<uint64_t>> FirstStoredChunk(uint64_t ino, uint64_t index);
  Result<uint64_t> FirstMissingChunk(uint64_t ino, uint64_t index);

  // The manifest describing a file's current content and xattrs.
  Result<Manifest> BuildManifest(uint64_t ino, const InodeRecord& rec);
  Result<XattrMap> LoadXattrs(uint64_t ino);

  // Posts `entry` to every change-feed subscriber (change_feed.h).
  Status PostChange(std::string_view entry);

 private:
  StoreImpl* impl_;
  Txn txn_;
  // The registered extension tables, read at the first deletion (reads and
  // most writes never need them).
  const std::vector<RegisteredTable>& tables();
  std::shared_ptr<const std::vector<RegisteredTable>> tables_;
  // Feed subscribers, read at the first post of this transaction.
  std::optional<std::vector<uint16_t>> subscribers_;
  std::string branch_name_;
  BranchRecord branch_;
  bool branch_changed_ = false;
};

// Builds the tree object of the working tree rooted at kRootIno, reusing cached
// ids of clean inodes and caching new ones. Returns the root tree id.
Result<ObjectId> WriteWorkingTree(TxnScope* scope);
// Makes the scope's working tree hold the content of `commit` (clean), keeping
// the inodes of entries whose name and type stay, and orphans; and replaces
// each versioning extension's data with the commit's root for it.
Status MaterializeTree(TxnScope* scope, const Commit& commit);
// The roots of versioning extensions' data for a snapshot of the scope's branch
// (Extension::SnapshotRoot); kNotSupported if one is registered but not attached.
Result<std::map<std::string, ObjectId>> SnapshotExtensionRoots(TxnScope* scope);
// Gives each versioning extension the commit's root for it (Extension::RestoreRoot).
// kNotSupported if one is registered but not attached, or if the commit holds
// a root of an extension that is not attached.
Status RestoreExtensionRoots(TxnScope* scope, const Commit& commit);
// Removes every working-tree record of branch `id`, per-inode extension records
// included.
Status ClearWorkingTree(Txn* txn, const StoreImpl& impl, uint32_t id);
// Copies every working-tree record of branch `from` to branch `to`, per-inode
// extension records included, and tells feed subscribers that still have
// changes of `from` to consume that `to` is new.
Status CopyWorkingTree(Txn* txn, const StoreImpl& impl, uint32_t from, uint32_t to);

// Diff from `a` to `b` (snapshot names/ids or "WORKING"), one read transaction.
Result<std::vector<DiffEntry>> DiffTrees(StoreImpl* impl, std::string_view a,
                                         std::string_view b);

// Garbage collection and verification (gc.cc, fsck.cc).
Result<GcReport> CollectGarbage(StoreImpl* impl, const ProgressFn& progress);
Result<FsckReport> CheckStore(StoreImpl* impl, const ProgressFn& progress);

// Reads file bytes described by a manifest; `offset`/`length` as in TreeView::Read.
Result<std::string> ReadManifestRange(const ObjectTable& objects, const Manifest& m,
                                      uint64_t offset, uint64_t length);

}  // namespace vexfs::internal

#endif  // VEXFS_STORE_STORE_IMPL_H_
