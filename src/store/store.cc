// Store: opening and creating stores, branches, snapshots, history, and the
// entry points to diff, restore, gc and fsck.
#include "vexfs/store.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "common/coding.h"
#include "store/change_feed.h"
#include "store/mounted_branch.h"
#include "store/store_config.h"
#include "store/store_impl.h"
#include "vexfs/paths.h"

namespace vexfs {

using internal::BranchRecord;
using internal::Commit;
using internal::InodeRecord;
using internal::StoreImpl;
using internal::Txn;
using internal::TxnScope;

namespace {

constexpr char kDefaultBranch[] = "main";

Status InitializeStore(StoreImpl* impl) {
  Txn txn;
  VEXFS_RETURN_IF_ERROR(impl->BeginTxn(&txn, /*write=*/true));
  const auto& dbs = impl->dbs();
  VEXFS_RETURN_IF_ERROR(txn.Put(dbs.meta, internal::kMetaFormat, internal::kFormatVersion));
  Encoder next;
  next.PutFixed32BE(2);
  VEXFS_RETURN_IF_ERROR(txn.Put(dbs.meta, internal::kMetaNextBranchId, next.data()));
  BranchRecord branch;
  branch.id = 1;
  branch.created = NowNs();
  VEXFS_RETURN_IF_ERROR(internal::SaveBranch(&txn, dbs, kDefaultBranch, branch));
  VEXFS_RETURN_IF_ERROR(txn.Put(dbs.refs, internal::kHeadRef, kDefaultBranch));
  InodeRecord root;
  root.type = FileType::kDirectory;
  root.mode = 0755;
  root.uid = ::geteuid();
  root.gid = ::getegid();
  root.nlink = 2;
  root.atime = root.mtime = root.ctime = branch.created;
  VEXFS_RETURN_IF_ERROR(txn.Put(dbs.inodes, internal::InodeKey(branch.id, kRootIno),
                                internal::EncodeInode(root)));
  return txn.Commit();
}

// Upgrades a format-1 store in place: format 2 only adds the change feed (its
// table is created when the environment opens) and the extension registry, so
// the upgrade is the new format number. Extensions re-subscribe on their own.
Status UpgradeFromFormat1(StoreImpl* impl) {
  Txn txn;
  VEXFS_RETURN_IF_ERROR(impl->BeginTxn(&txn, /*write=*/true));
  VEXFS_RETURN_IF_ERROR(txn.Put(impl->dbs().meta, internal::kMetaFormat, internal::kFormatVersion));
  return txn.Commit();
}

// Checks the format and upgrades an older one. A format-1 store on read-only
// media is read as it is: nothing it holds changed meaning.
Status CheckFormat(StoreImpl* impl) {
  Txn txn;
  VEXFS_RETURN_IF_ERROR(impl->BeginTxn(&txn, /*write=*/false));
  VEXFS_ASSIGN_OR_RETURN(auto format, txn.Get(impl->dbs().meta, internal::kMetaFormat));
  if (!format) {
    return Status::Corruption("store at '" + impl->path() +
                              "' was never fully initialised (init interrupted?)");
  }
  if (*format == internal::kFormatVersion) return Status::Ok();
  if (*format == internal::kFormatVersion1) {
    txn.Abort();
    if (impl->lmdb().read_only()) return Status::Ok();
    return UpgradeFromFormat1(impl).WithContext("upgrade store at '" + impl->path() +
                                                "' from format 1");
  }
  return Status::NotSupported("store at '" + impl->path() + "' has format " +
                              std::string(*format) + "; this vexfs reads formats " +
                              std::string(internal::kFormatVersion1) + " and " +
                              std::string(internal::kFormatVersion));
}

// Opens LMDB; on read-only media falls back to a read-only, lock-free open.
Status OpenEnvironment(StoreImpl* impl, uint64_t map_size) {
  const StoreOptions& o = impl->options();
  Status st = impl->lmdb().Open(impl->path(), map_size, o.sync_on_commit, o.read_only);
  if (st.code() != StatusCode::kReadOnly || o.read_only) return st;
  st = impl->lmdb().Open(impl->path(), map_size, o.sync_on_commit, /*read_only=*/true);
  if (st.code() != StatusCode::kReadOnly) return st;
  return impl->lmdb().Open(impl->path(), map_size, o.sync_on_commit, true, /*no_lock=*/true);
}

Result<CommitInfo> MakeCommitInfo(TxnScope* scope, const ObjectId& id,
                                  const std::map<ObjectId, std::vector<std::string>>& names) {
  VEXFS_ASSIGN_OR_RETURN(Commit c, scope->objects().GetCommit(id));
  CommitInfo info;
  info.id = id;
  info.tree = c.tree;
  info.parents = c.parents;
  info.time = c.time;
  info.branch = c.branch;
  info.message = c.message;
  info.meta = c.meta;
  info.roots = c.roots;
  auto it = names.find(id);
  if (it != names.end()) info.names = it->second;
  return info;
}

Result<std::map<ObjectId, std::vector<std::string>>> SnapshotNames(TxnScope* scope) {
  std::map<ObjectId, std::vector<std::string>> out;
  VEXFS_ASSIGN_OR_RETURN(auto refs, internal::ScanPrefix(scope->txn(), scope->dbs().refs,
                                                         internal::kSnapshotRefPrefix));
  for (const auto& [key, value] : refs) {
    if (value.size() != 32) return Status::Corruption("ref '" + key + "' is malformed");
    out[ObjectId::FromBytes(value)].push_back(key.substr(internal::kSnapshotRefPrefix.size()));
  }
  return out;
}

Status ValidateMeta(const std::map<std::string, std::string>& meta) {
  for (const auto& [key, value] : meta) {
    if (key.empty() || key.size() > 255 || key.find('=') != std::string::npos) {
      return Status::InvalidArgument("metadata key '" + key +
                                     "' must be 1-255 bytes without '='");
    }
    if (value.size() > 4096) {
      return Status::InvalidArgument("metadata value of '" + key + "' is over 4096 bytes");
    }
  }
  return Status::Ok();
}

Result<uint32_t> AllocateBranchId(Txn* txn, const internal::Databases& dbs) {
  VEXFS_ASSIGN_OR_RETURN(auto raw, txn->Get(dbs.meta, internal::kMetaNextBranchId));
  uint32_t id = 0;
  Decoder d(raw ? *raw : std::string_view());
  if (!d.GetFixed32BE(&id)) return Status::Corruption("store meta 'next_branch_id' is malformed");
  Encoder next;
  next.PutFixed32BE(id + 1);
  VEXFS_RETURN_IF_ERROR(txn->Put(dbs.meta, internal::kMetaNextBranchId, next.data()));
  return id;
}

// A failed Create leaves the directory as empty as it found it, so the same
// path can be initialised again once the cause (say, a full disk) is gone.
void RemoveUnfinishedStore(StoreImpl* impl) {
  impl->lmdb().Close();
  for (const char* name : {"VEXFS", "VEXFS.tmp", "data.mdb", "lock.mdb"}) {
    std::error_code ignored;
    std::filesystem::remove(std::filesystem::path(impl->path()) / name, ignored);
  }
}

}  // namespace

const char* DiffKindName(DiffEntry::Kind kind) {
  switch (kind) {
    case DiffEntry::Kind::kAdded: return "added";
    case DiffEntry::Kind::kRemoved: return "removed";
    case DiffEntry::Kind::kModified: return "modified";
    case DiffEntry::Kind::kRenamed: return "renamed";
    case DiffEntry::Kind::kTypeChanged: return "type-changed";
  }
  return "unknown";
}

Store::Store(std::unique_ptr<StoreImpl> impl) : impl_(std::move(impl)) {}
Store::~Store() = default;

const std::string& Store::path() const { return impl_->path(); }

uint64_t Store::LastCommitId() const {
  // Not mdb_env_info's id: LMDB writes a commit's meta page (which that reads)
  // before it publishes the commit to new readers, so for a moment that id is
  // ahead of every read. A cache keyed on it then kept a view built without the
  // commit under the commit's id, until the next write: a note written, indexed
  // and never found.
  MDB_txn* txn = nullptr;
  if (mdb_txn_begin(impl_->lmdb().env(), nullptr, MDB_RDONLY, &txn) != 0) {
    MDB_envinfo info;  // no reader slot free: the file's id is the best left
    mdb_env_info(impl_->lmdb().env(), &info);
    return info.me_last_txnid;
  }
  uint64_t id = mdb_txn_id(txn);
  mdb_txn_abort(txn);
  return id;
}

Result<std::unique_ptr<Store>> Store::Create(const std::string& path,
                                             const StoreOptions& options) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) return Status::IOError("create directory '" + path + "': " + ec.message());
  if (internal::ReadStoreConfig(path).ok()) {
    return Status::AlreadyExists("a VexFS store already exists at '" + path + "'");
  }
  if (!std::filesystem::is_empty(path, ec)) {
    return Status::AlreadyExists("directory '" + path + "' is not empty");
  }
  internal::StoreConfig config;
  config.map_size = options.map_size ? options.map_size : kDefaultMapSize;
  auto impl = std::make_unique<StoreImpl>(path, options);
  Status st = impl->lmdb().Open(path, config.map_size, options.sync_on_commit, options.read_only);
  // Busy: another Create in this process has the directory open; its files are
  // not this call's to remove.
  if (st.code() == StatusCode::kBusy) return st;
  if (st.ok()) st = InitializeStore(impl.get());
  // The marker comes last: a directory without it is not (yet) a store.
  if (st.ok()) st = internal::WriteStoreConfig(path, config);
  if (!st.ok()) {
    RemoveUnfinishedStore(impl.get());
    return st;
  }
  return std::unique_ptr<Store>(new Store(std::move(impl)));
}

Result<std::unique_ptr<Store>> Store::Open(const std::string& path,
                                           const StoreOptions& options) {
  VEXFS_ASSIGN_OR_RETURN(internal::StoreConfig config, internal::ReadStoreConfig(path));
  auto impl = std::make_unique<StoreImpl>(path, options);
  uint64_t map_size = options.map_size ? options.map_size : config.map_size;
  VEXFS_RETURN_IF_ERROR(OpenEnvironment(impl.get(), map_size));
  VEXFS_RETURN_IF_ERROR(CheckFormat(impl.get()));
  VEXFS_RETURN_IF_ERROR(impl->OpenRegisteredTables());
  return std::unique_ptr<Store>(new Store(std::move(impl)));
}

Result<std::string> Store::CurrentBranch() {
  Txn txn;
  VEXFS_RETURN_IF_ERROR(impl_->BeginTxn(&txn, false));
  return internal::ReadHead(txn, impl_->dbs());
}

Result<std::vector<BranchInfo>> Store::ListBranches() {
  Txn txn;
  VEXFS_RETURN_IF_ERROR(impl_->BeginTxn(&txn, false));
  VEXFS_ASSIGN_OR_RETURN(std::string head, internal::ReadHead(txn, impl_->dbs()));
  VEXFS_ASSIGN_OR_RETURN(auto refs, internal::ScanPrefix(txn, impl_->dbs().refs,
                                                         internal::kBranchRefPrefix));
  std::vector<BranchInfo> out;
  for (const auto& [key, value] : refs) {
    BranchRecord rec;
    VEXFS_RETURN_IF_ERROR(internal::DecodeBranch(value, &rec).WithContext(key));
    std::string name = key.substr(internal::kBranchRefPrefix.size());
    out.push_back(BranchInfo{name, rec.head, name == head});
  }
  return out;
}

Status Store::CreateBranch(std::string_view name, std::optional<std::string> from_snapshot,
                           std::string_view from_branch) {
  VEXFS_RETURN_IF_ERROR(ValidateRefName(name, "branch"));
  TxnScope scope(impl_.get());
  // From a snapshot the source branch plays no part (it may even be gone).
  VEXFS_RETURN_IF_ERROR(scope.Begin(/*write=*/true, from_snapshot ? "" : from_branch));
  const auto& dbs = impl_->dbs();
  VEXFS_ASSIGN_OR_RETURN(auto existing, internal::FindBranch(scope.txn(), dbs, name));
  if (existing) return Status::AlreadyExists("branch '" + std::string(name) + "' already exists");
  BranchRecord rec = scope.branch();
  VEXFS_ASSIGN_OR_RETURN(rec.id, AllocateBranchId(&scope.txn(), dbs));
  rec.created = NowNs();
  if (!from_snapshot) {
    VEXFS_RETURN_IF_ERROR(
        internal::CopyWorkingTree(&scope.txn(), *impl_, scope.branch_id(), rec.id));
    VEXFS_RETURN_IF_ERROR(internal::SaveBranch(&scope.txn(), dbs, name, rec));
    return scope.Commit();
  }
  VEXFS_ASSIGN_OR_RETURN(ObjectId commit_id,
                         internal::ResolveCommit(scope.txn(), dbs, *from_snapshot));
  VEXFS_ASSIGN_OR_RETURN(Commit commit, scope.objects().GetCommit(commit_id));
  rec.head = commit_id;
  VEXFS_RETURN_IF_ERROR(internal::SaveBranch(&scope.txn(), dbs, name, rec));
  VEXFS_RETURN_IF_ERROR(scope.SwitchBranch(name));
  VEXFS_RETURN_IF_ERROR(internal::MaterializeTree(&scope, commit));
  return scope.Commit();
}

Status Store::Checkout(std::string_view branch) {
  Txn txn;
  VEXFS_RETURN_IF_ERROR(impl_->BeginTxn(&txn, true));
  VEXFS_RETURN_IF_ERROR(internal::LoadBranch(txn, impl_->dbs(), branch).status());
  VEXFS_RETURN_IF_ERROR(txn.Put(impl_->dbs().refs, internal::kHeadRef, branch));
  return txn.Commit();
}

Status Store::DeleteBranch(std::string_view branch) {
  VEXFS_RETURN_IF_ERROR(ValidateRefName(branch, "branch"));  // it names a file below
  Txn txn;
  VEXFS_RETURN_IF_ERROR(impl_->BeginTxn(&txn, true));
  const auto& dbs = impl_->dbs();
  VEXFS_ASSIGN_OR_RETURN(BranchRecord rec, internal::LoadBranch(txn, dbs, branch));
  VEXFS_ASSIGN_OR_RETURN(std::string head, internal::ReadHead(txn, dbs));
  if (head == branch) {
    return Status::InvalidArgument("branch '" + head + "' is checked out; check out another first");
  }
  // Held until the delete is committed (it is destroyed after the return's
  // commit): no mount starts serving the branch meanwhile.
  VEXFS_ASSIGN_OR_RETURN(auto unmounted, internal::UnmountedBranchGuard::Take(path(), branch));
  VEXFS_RETURN_IF_ERROR(internal::ClearWorkingTree(&txn, *impl_, rec.id));
  VEXFS_RETURN_IF_ERROR(txn.Delete(dbs.refs, internal::BranchRef(branch)).status());
  return txn.Commit();
}

Result<std::unique_ptr<WorkingTree>> Store::Tree(std::string_view branch) {
  std::string name(branch);
  Txn txn;
  VEXFS_RETURN_IF_ERROR(impl_->BeginTxn(&txn, false));
  if (name.empty()) {
    VEXFS_ASSIGN_OR_RETURN(name, internal::ReadHead(txn, impl_->dbs()));
  }
  VEXFS_RETURN_IF_ERROR(internal::LoadBranch(txn, impl_->dbs(), name).status());
  return std::make_unique<WorkingTree>(impl_.get(), name);
}

Result<CommitInfo> Store::CreateSnapshot(std::string_view name, std::string_view message,
                                         const std::map<std::string, std::string>& meta,
                                         std::string_view branch) {
  VEXFS_RETURN_IF_ERROR(ValidateRefName(name, "snapshot"));
  VEXFS_RETURN_IF_ERROR(ValidateMeta(meta));
  TxnScope scope(impl_.get());
  VEXFS_RETURN_IF_ERROR(scope.Begin(/*write=*/true, branch));
  VEXFS_ASSIGN_OR_RETURN(auto taken, internal::FindSnapshot(scope.txn(), scope.dbs(), name));
  if (taken) return Status::AlreadyExists("snapshot '" + std::string(name) + "' already exists");
  VEXFS_ASSIGN_OR_RETURN(ObjectId tree, internal::WriteWorkingTree(&scope));
  VEXFS_ASSIGN_OR_RETURN(InodeRecord root, scope.LoadInode(kRootIno));
  Commit commit;
  commit.tree = tree;
  commit.root = internal::TreeEntry{"", FileType::kDirectory, root.mode, root.uid, root.gid,
                                    root.mtime, 0, tree};
  VEXFS_ASSIGN_OR_RETURN(commit.roots, internal::SnapshotExtensionRoots(&scope));
  if (scope.branch().head) commit.parents.push_back(*scope.branch().head);
  commit.time = NowNs();
  commit.branch = scope.branch_name();
  commit.message = std::string(message);
  commit.meta = meta;
  VEXFS_ASSIGN_OR_RETURN(ObjectId id, scope.objects().Put(internal::ObjectType::kCommit,
                                                          internal::EncodeCommit(commit)));
  VEXFS_RETURN_IF_ERROR(scope.txn().Put(scope.dbs().refs, internal::SnapshotRef(name), id.AsBytes()));
  // What a subscriber has not consumed yet could change before it reads it; the
  // snapshot is posted to such subscribers so that they see its own content.
  VEXFS_RETURN_IF_ERROR(internal::PostToBehind(&scope.txn(), scope.dbs(), scope.branch_id(),
                                               SnapshotChangeEntry(id)));
  scope.branch().head = id;
  scope.MarkBranchChanged();
  VEXFS_ASSIGN_OR_RETURN(CommitInfo info, MakeCommitInfo(&scope, id, {}));
  info.names = {std::string(name)};
  VEXFS_RETURN_IF_ERROR(scope.Commit());
  return info;
}

Status Store::TagSnapshot(std::string_view new_name, std::string_view existing) {
  VEXFS_RETURN_IF_ERROR(ValidateRefName(new_name, "snapshot"));
  Txn txn;
  VEXFS_RETURN_IF_ERROR(impl_->BeginTxn(&txn, true));
  VEXFS_ASSIGN_OR_RETURN(ObjectId id, internal::ResolveCommit(txn, impl_->dbs(), existing));
  VEXFS_ASSIGN_OR_RETURN(bool inserted,
                         txn.PutIfAbsent(impl_->dbs().refs, internal::SnapshotRef(new_name),
                                         id.AsBytes()));
  if (!inserted) {
    return Status::AlreadyExists("snapshot '" + std::string(new_name) + "' already exists");
  }
  return txn.Commit();
}

Status Store::DeleteSnapshotName(std::string_view name) {
  Txn txn;
  VEXFS_RETURN_IF_ERROR(impl_->BeginTxn(&txn, true));
  VEXFS_ASSIGN_OR_RETURN(bool deleted,
                         txn.Delete(impl_->dbs().refs, internal::SnapshotRef(name)));
  if (!deleted) return Status::NotFound("snapshot '" + std::string(name) + "' not found");
  return txn.Commit();
}

Result<std::vector<CommitInfo>> Store::ListSnapshots() {
  TxnScope scope(impl_.get());
  VEXFS_RETURN_IF_ERROR(scope.Begin(false, ""));
  VEXFS_ASSIGN_OR_RETURN(auto names, SnapshotNames(&scope));
  std::vector<CommitInfo> out;
  for (const auto& [id, unused] : names) {
    VEXFS_ASSIGN_OR_RETURN(CommitInfo info, MakeCommitInfo(&scope, id, names));
    out.push_back(std::move(info));
  }
  std::sort(out.begin(), out.end(), [](const CommitInfo& a, const CommitInfo& b) {
    return a.time != b.time ? a.time < b.time : a.id < b.id;
  });
  return out;
}

Result<CommitInfo> Store::ResolveSnapshot(std::string_view name_or_id) {
  TxnScope scope(impl_.get());
  VEXFS_RETURN_IF_ERROR(scope.Begin(false, ""));
  VEXFS_ASSIGN_OR_RETURN(ObjectId id, internal::ResolveCommit(scope.txn(), scope.dbs(), name_or_id));
  VEXFS_ASSIGN_OR_RETURN(auto names, SnapshotNames(&scope));
  return MakeCommitInfo(&scope, id, names);
}

Result<std::vector<CommitInfo>> Store::Log(std::string_view branch_or_snapshot, size_t limit) {
  TxnScope scope(impl_.get());
  VEXFS_RETURN_IF_ERROR(scope.Begin(false, ""));
  std::optional<ObjectId> start = scope.branch().head;
  if (!branch_or_snapshot.empty()) {
    VEXFS_ASSIGN_OR_RETURN(auto branch,
                           internal::FindBranch(scope.txn(), scope.dbs(), branch_or_snapshot));
    if (branch) {
      start = branch->head;
    } else {
      VEXFS_ASSIGN_OR_RETURN(start, internal::ResolveCommit(scope.txn(), scope.dbs(),
                                                            branch_or_snapshot));
    }
  }
  VEXFS_ASSIGN_OR_RETURN(auto names, SnapshotNames(&scope));
  std::vector<CommitInfo> out;
  std::set<ObjectId> seen;
  std::vector<ObjectId> pending;
  if (start) pending.push_back(*start);
  while (!pending.empty() && (limit == 0 || out.size() < limit)) {
    // Newest first among the frontier, so merged histories interleave by time.
    ObjectId id = pending.front();
    pending.erase(pending.begin());
    if (!seen.insert(id).second) continue;
    VEXFS_ASSIGN_OR_RETURN(CommitInfo info, MakeCommitInfo(&scope, id, names));
    pending.insert(pending.end(), info.parents.begin(), info.parents.end());
    out.push_back(std::move(info));
  }
  return out;
}

Result<std::unique_ptr<SnapshotView>> Store::OpenSnapshot(std::string_view name_or_id) {
  VEXFS_ASSIGN_OR_RETURN(CommitInfo info, ResolveSnapshot(name_or_id));
  return std::make_unique<SnapshotView>(impl_.get(), info.id, info.tree);
}

Result<std::unique_ptr<TreeView>> Store::OpenView(std::string_view at, std::string_view branch) {
  if (!at.empty()) {
    VEXFS_ASSIGN_OR_RETURN(auto view, OpenSnapshot(at));
    return std::unique_ptr<TreeView>(std::move(view));
  }
  VEXFS_ASSIGN_OR_RETURN(auto tree, Tree(branch));
  return std::unique_ptr<TreeView>(std::move(tree));
}

Result<std::vector<DiffEntry>> Store::Diff(std::string_view a, std::string_view b) {
  return internal::DiffTrees(impl_.get(), a, b);
}

Status Store::Restore(std::string_view snapshot, std::string_view branch) {
  TxnScope scope(impl_.get());
  VEXFS_RETURN_IF_ERROR(scope.Begin(/*write=*/true, branch));
  VEXFS_ASSIGN_OR_RETURN(ObjectId id, internal::ResolveCommit(scope.txn(), scope.dbs(), snapshot));
  VEXFS_ASSIGN_OR_RETURN(Commit commit, scope.objects().GetCommit(id));
  VEXFS_RETURN_IF_ERROR(internal::MaterializeTree(&scope, commit));
  return scope.Commit();
}

Result<GcReport> Store::Gc(const ProgressFn& progress) {
  return internal::CollectGarbage(impl_.get(), progress);
}

Result<FsckReport> Store::Fsck(const ProgressFn& progress) {
  return internal::CheckStore(impl_.get(), progress);
}

Result<StoreStats> Store::Stats() {
  Txn txn;
  VEXFS_RETURN_IF_ERROR(impl_->BeginTxn(&txn, false));
  StoreStats stats;
  internal::Cursor cursor;
  VEXFS_RETURN_IF_ERROR(cursor.Open(txn, impl_->dbs().objects));
  VEXFS_ASSIGN_OR_RETURN(bool more, cursor.First());
  while (more) {
    stats.objects++;
    stats.object_bytes += cursor.value().size();
    VEXFS_ASSIGN_OR_RETURN(more, cursor.Next());
  }
  MDB_envinfo info;
  MDB_stat st;
  mdb_env_info(impl_->lmdb().env(), &info);
  mdb_env_stat(impl_->lmdb().env(), &st);
  stats.map_size = info.me_mapsize;
  stats.map_used = (info.me_last_pgno + 1) * uint64_t{st.ms_psize};
  return stats;
}

Status Store::Sync() {
  return internal::LmdbStatus(mdb_env_sync(impl_->lmdb().env(), 1), "sync store");
}

}  // namespace vexfs
