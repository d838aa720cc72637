// Filling a working tree from a snapshot's objects (restore, branch from a
// snapshot), and clearing or copying a branch's working-tree records. No file data
// is copied: the working tree references the snapshot's chunks.
#include "store/store_impl.h"

#include "store/change_feed.h"

namespace vexfs::internal {
namespace {

InodeRecord CleanRecord(const TreeEntry& entry, uint64_t parent, TimeNs now) {
  InodeRecord rec;
  CopySharedAttributes(entry, &rec);
  rec.nlink = entry.type == FileType::kDirectory ? 2 : 1;
  rec.atime = now;
  rec.ctime = now;
  rec.dirty = false;
  rec.cached = entry.id;
  if (parent != 0) rec.parents = {parent};
  return rec;
}

Status PutXattrs(TxnScope* scope, uint64_t ino, const XattrMap& xattrs) {
  for (const auto& [name, value] : xattrs) {
    VEXFS_RETURN_IF_ERROR(
        scope->txn().Put(scope->dbs().xattrs, XattrKey(scope->branch_id(), ino, name), value));
  }
  return Status::Ok();
}

Status MaterializeFile(TxnScope* scope, uint64_t ino, const TreeEntry& entry,
                       InodeRecord* rec) {
  VEXFS_ASSIGN_OR_RETURN(Manifest m, scope->objects().GetManifest(entry.id));
  if (IsSpecialFile(entry.type) && m.size != 0) {
    return Status::Corruption("the " + std::string(FileTypeName(entry.type)) + " '" +
                              entry.name + "' has content in the snapshot");
  }
  rec->size = m.size;
  for (uint64_t index = 0; index < m.chunks.size(); ++index) {
    if (!m.chunks[index].IsZero()) {
      VEXFS_RETURN_IF_ERROR(scope->SetChunk(ino, index, m.chunks[index]));
    }
  }
  return PutXattrs(scope, ino, m.xattrs);
}

Status MaterializeDir(TxnScope* scope, uint64_t ino, InodeRecord* rec, const ObjectId& tree_id,
                      TimeNs now, int depth) {
  if (depth > 4096) return Status::Corruption("snapshot nesting deeper than 4096");
  VEXFS_ASSIGN_OR_RETURN(Tree tree, scope->objects().GetTree(tree_id));
  VEXFS_RETURN_IF_ERROR(PutXattrs(scope, ino, tree.xattrs));
  for (const TreeEntry& entry : tree.entries) {
    uint64_t child = scope->AllocateIno();
    InodeRecord child_rec = CleanRecord(entry, ino, now);
    if (entry.type == FileType::kDirectory) {
      rec->nlink++;
      VEXFS_RETURN_IF_ERROR(MaterializeDir(scope, child, &child_rec, entry.id, now, depth + 1));
    } else if (entry.type == FileType::kSymlink) {
      VEXFS_ASSIGN_OR_RETURN(child_rec.symlink_target,
                             scope->objects().Get(entry.id, ObjectType::kChunk));
    } else {
      VEXFS_RETURN_IF_ERROR(MaterializeFile(scope, child, entry, &child_rec));
    }
    VEXFS_RETURN_IF_ERROR(scope->SaveInode(child, child_rec));
    VEXFS_RETURN_IF_ERROR(scope->PutEntry(ino, entry.name, DirentValue{child, entry.type}));
  }
  return Status::Ok();
}

}  // namespace

namespace {

// The tables holding working-tree records: the store's, and extensions' per-inode
// and per-branch ones.
std::vector<MDB_dbi> WorkingTreeTables(const StoreImpl& impl) {
  const Databases& dbs = impl.dbs();
  std::vector<MDB_dbi> out{dbs.inodes, dbs.dirents, dbs.chunks, dbs.xattrs, dbs.orphans};
  auto tables = impl.tables();  // held: a range-for over *impl.tables() would outlive it
  for (const RegisteredTable& t : *tables) {
    if (t.scope != TableScope::kGlobal) out.push_back(t.dbi);
  }
  return out;
}

}  // namespace

Status ClearWorkingTree(Txn* txn, const StoreImpl& impl, uint32_t id) {
  std::string prefix = BranchPrefix(id);
  for (MDB_dbi dbi : WorkingTreeTables(impl)) {
    VEXFS_RETURN_IF_ERROR(DeletePrefix(txn, dbi, prefix));
  }
  return Status::Ok();
}

Status CopyWorkingTree(Txn* txn, const StoreImpl& impl, uint32_t from, uint32_t to) {
  std::string from_prefix = BranchPrefix(from);
  std::string to_prefix = BranchPrefix(to);
  // Extensions' per-inode records are copied too (the copy is searchable at
  // once), so a subscriber that has consumed every change of `from` has nothing
  // to do for `to`.
  for (MDB_dbi dbi : WorkingTreeTables(impl)) {
    VEXFS_ASSIGN_OR_RETURN(auto rows, ScanPrefix(*txn, dbi, from_prefix));
    for (const auto& [key, value] : rows) {
      VEXFS_RETURN_IF_ERROR(txn->Put(dbi, to_prefix + key.substr(from_prefix.size()), value));
    }
  }
  return PostToBehind(txn, impl.dbs(), from, TreeChangeEntry(to));
}

Status MaterializeTree(TxnScope* scope, const Commit& commit) {
  VEXFS_RETURN_IF_ERROR(ClearWorkingTree(&scope->txn(), *scope->impl(), scope->branch_id()));
  TimeNs now = NowNs();
  InodeRecord root = CleanRecord(commit.root, 0, now);
  root.type = FileType::kDirectory;
  root.cached = commit.tree;
  VEXFS_RETURN_IF_ERROR(MaterializeDir(scope, kRootIno, &root, commit.tree, now, 0));
  VEXFS_RETURN_IF_ERROR(scope->PostChange(TreeChangeEntry(scope->branch_id())));
  VEXFS_RETURN_IF_ERROR(scope->SaveInode(kRootIno, root));
  return RestoreExtensionRoots(scope, commit);
}

}  // namespace vexfs::internal
