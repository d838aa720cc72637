// Filling a working tree from a snapshot's objects (restore, branch from a
// snapshot), and clearing or copying a branch's working-tree records. No file data
// is copied: the working tree references the snapshot's chunks. A restore
// changes only what differs from the snapshot: entries that keep their name and
// type keep their inode numbers (so a mount's open files and working
// directories stay valid), and a subtree unchanged since it was last
// snapshotted or restored as the same tree is not visited at all.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

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

// Drops every xattr of `ino` (before the snapshot's are put back).
Status ClearXattrs(TxnScope* scope, uint64_t ino) {
  return DeletePrefix(&scope->txn(), scope->dbs().xattrs, XattrPrefix(scope->branch_id(), ino));
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

// The content of a non-directory `entry` (bytes and xattrs, or a link's target)
// into inode `ino`, which holds none.
Status MaterializeContent(TxnScope* scope, uint64_t ino, const TreeEntry& entry,
                          InodeRecord* rec) {
  if (entry.type != FileType::kSymlink) return MaterializeFile(scope, ino, entry, rec);
  VEXFS_ASSIGN_OR_RETURN(rec->symlink_target, scope->objects().Get(entry.id, ObjectType::kChunk));
  return Status::Ok();
}

Status RestoreDir(TxnScope* scope, uint64_t ino, InodeRecord* rec, const ObjectId& tree_id,
                  TimeNs now, int depth);

// A new inode for `entry` in directory `parent` (a whole subtree for a directory).
Status MaterializeEntry(TxnScope* scope, uint64_t parent, InodeRecord* parent_rec,
                        const TreeEntry& entry, TimeNs now, int depth) {
  uint64_t child = scope->AllocateIno();
  InodeRecord child_rec = CleanRecord(entry, parent, now);
  if (entry.type == FileType::kDirectory) {
    parent_rec->nlink++;
    VEXFS_RETURN_IF_ERROR(RestoreDir(scope, child, &child_rec, entry.id, now, depth + 1));
  } else {
    VEXFS_RETURN_IF_ERROR(MaterializeContent(scope, child, entry, &child_rec));
  }
  VEXFS_RETURN_IF_ERROR(scope->SaveInode(child, child_rec));
  return scope->PutEntry(parent, entry.name, DirentValue{child, entry.type});
}

// Removes `name` -> `child` from `parent`, with what only it held: a directory's
// whole subtree, a file's inode unless another hard link still holds it.
Status RemoveEntry(TxnScope* scope, uint64_t parent, const std::string& name,
                   const DirentValue& child, int depth) {
  if (depth > 4096) return Status::Corruption("working tree nesting deeper than 4096");
  VEXFS_RETURN_IF_ERROR(scope->DeleteEntry(parent, name));
  if (child.type == FileType::kDirectory) {
    VEXFS_ASSIGN_OR_RETURN(auto entries, scope->ListEntries(child.ino));
    for (const auto& [child_name, grandchild] : entries) {
      VEXFS_RETURN_IF_ERROR(RemoveEntry(scope, child.ino, child_name, grandchild, depth + 1));
    }
    return scope->DeleteInode(child.ino);
  }
  VEXFS_ASSIGN_OR_RETURN(InodeRecord rec, scope->LoadInode(child.ino));
  if (rec.nlink <= 1) return scope->DeleteInode(child.ino);
  rec.nlink--;
  auto link = std::find(rec.parents.begin(), rec.parents.end(), parent);
  if (link != rec.parents.end()) rec.parents.erase(link);
  return scope->SaveInode(child.ino, rec);
}

// Makes the existing inode `child` (of `entry`'s type) hold `entry`, keeping
// its number: what is unchanged since it was last snapshotted or restored is
// left alone. False if it cannot be kept: a file with other hard links, which
// the snapshot holds as separate files (and whose attributes, shared by every
// link, the other links' directories record too).
Result<bool> RestoreInPlace(TxnScope* scope, uint64_t child, const TreeEntry& entry,
                            TimeNs now, int depth) {
  VEXFS_ASSIGN_OR_RETURN(InodeRecord rec, scope->LoadInode(child));
  const bool same_content = !rec.dirty && rec.cached == entry.id;
  const bool is_dir = entry.type == FileType::kDirectory;
  if (!is_dir && rec.nlink > 1) return false;
  InodeRecord before = rec;
  if (is_dir) {
    // A clean directory cached as this tree holds exactly it, all the way down.
    if (!same_content) VEXFS_RETURN_IF_ERROR(RestoreDir(scope, child, &rec, entry.id, now, depth));
  } else if (!same_content) {
    VEXFS_RETURN_IF_ERROR(ClearXattrs(scope, child));
    VEXFS_RETURN_IF_ERROR(DeletePrefix(&scope->txn(), scope->dbs().chunks,
                                       ChunkPrefix(scope->branch_id(), child)));
    VEXFS_RETURN_IF_ERROR(MaterializeContent(scope, child, entry, &rec));
  } else if (entry.type == FileType::kSymlink) {
    VEXFS_RETURN_IF_ERROR(ClearXattrs(scope, child));  // snapshots hold none for links
  }
  CopySharedAttributes(entry, &rec);
  rec.dirty = false;
  rec.cached = entry.id;
  if (!same_content || EncodeInode(rec) != EncodeInode(before)) {
    rec.ctime = now;
    VEXFS_RETURN_IF_ERROR(scope->SaveInode(child, rec));
  }
  return true;
}

// Makes directory `ino` (its record in `rec`, saved by the caller) hold the
// tree `tree_id`: entries of the same name and type keep their inodes, the
// rest are removed or made.
Status RestoreDir(TxnScope* scope, uint64_t ino, InodeRecord* rec, const ObjectId& tree_id,
                  TimeNs now, int depth) {
  if (depth > 4096) return Status::Corruption("snapshot nesting deeper than 4096");
  VEXFS_ASSIGN_OR_RETURN(Tree tree, scope->objects().GetTree(tree_id));
  VEXFS_RETURN_IF_ERROR(ClearXattrs(scope, ino));
  VEXFS_RETURN_IF_ERROR(PutXattrs(scope, ino, tree.xattrs));
  VEXFS_ASSIGN_OR_RETURN(auto listed, scope->ListEntries(ino));
  std::map<std::string, DirentValue> existing(listed.begin(), listed.end());
  rec->nlink = 2;
  for (const TreeEntry& entry : tree.entries) {
    auto it = existing.find(entry.name);
    if (it != existing.end()) {
      DirentValue current = it->second;
      existing.erase(it);
      if (current.type == entry.type) {
        VEXFS_ASSIGN_OR_RETURN(bool kept,
                               RestoreInPlace(scope, current.ino, entry, now, depth + 1));
        if (kept) {
          if (entry.type == FileType::kDirectory) rec->nlink++;
          continue;
        }
      }
      VEXFS_RETURN_IF_ERROR(RemoveEntry(scope, ino, entry.name, current, depth + 1));
    }
    VEXFS_RETURN_IF_ERROR(MaterializeEntry(scope, ino, rec, entry, now, depth));
  }
  for (const auto& [name, current] : existing) {
    VEXFS_RETURN_IF_ERROR(RemoveEntry(scope, ino, name, current, depth + 1));
  }
  return Status::Ok();
}

}  // namespace

namespace {

// The extensions' per-inode and per-branch tables: their records of a restored
// branch go, and the tree change posted makes subscribers rebuild them.
std::vector<MDB_dbi> ExtensionWorkingTreeTables(const StoreImpl& impl) {
  std::vector<MDB_dbi> out;
  auto tables = impl.tables();  // held: a range-for over *impl.tables() would outlive it
  for (const RegisteredTable& t : *tables) {
    if (t.scope != TableScope::kGlobal) out.push_back(t.dbi);
  }
  return out;
}

// The tables holding working-tree records: the store's and the extensions'.
std::vector<MDB_dbi> WorkingTreeTables(const StoreImpl& impl) {
  const Databases& dbs = impl.dbs();
  std::vector<MDB_dbi> out{dbs.inodes, dbs.dirents, dbs.chunks, dbs.xattrs, dbs.orphans};
  for (MDB_dbi dbi : ExtensionWorkingTreeTables(impl)) out.push_back(dbi);
  return out;
}

// Deletes branch `id`'s records from each of `tables`.
Status DeleteBranchRecords(Txn* txn, const std::vector<MDB_dbi>& tables, uint32_t id) {
  std::string prefix = BranchPrefix(id);
  for (MDB_dbi dbi : tables) VEXFS_RETURN_IF_ERROR(DeletePrefix(txn, dbi, prefix));
  return Status::Ok();
}

}  // namespace

Status ClearWorkingTree(Txn* txn, const StoreImpl& impl, uint32_t id) {
  return DeleteBranchRecords(txn, WorkingTreeTables(impl), id);
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
  VEXFS_RETURN_IF_ERROR(DeleteBranchRecords(
      &scope->txn(), ExtensionWorkingTreeTables(*scope->impl()), scope->branch_id()));
  TimeNs now = NowNs();
  // The root keeps its inode like every entry restored in place; a new
  // branch has none yet.
  auto loaded = scope->LoadInode(kRootIno);
  if (!loaded.ok() && loaded.status().code() != StatusCode::kNotFound) return loaded.status();
  InodeRecord root = loaded.ok() ? *loaded : CleanRecord(commit.root, 0, now);
  if (!loaded.ok() || root.dirty || root.cached != commit.tree) {
    VEXFS_RETURN_IF_ERROR(RestoreDir(scope, kRootIno, &root, commit.tree, now, 0));
    root.ctime = now;
  }
  CopySharedAttributes(commit.root, &root);
  root.type = FileType::kDirectory;
  root.dirty = false;
  root.cached = commit.tree;
  root.parents.clear();
  VEXFS_RETURN_IF_ERROR(scope->PostChange(TreeChangeEntry(scope->branch_id())));
  VEXFS_RETURN_IF_ERROR(scope->SaveInode(kRootIno, root));
  return RestoreExtensionRoots(scope, commit);
}

}  // namespace vexfs::internal
