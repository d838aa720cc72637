// Turns a working tree into tree objects, visiting only what changed since the last
// snapshot: clean inodes contribute their cached object id without being read.
#include "store/store_impl.h"

namespace vexfs::internal {
namespace {

TreeEntry EntryFor(const std::string& name, const InodeRecord& rec, const ObjectId& id) {
  TreeEntry e;
  e.name = name;
  CopySharedAttributes(rec, &e);
  e.id = id;
  return e;
}

// The object id of a non-directory inode, writing its object if it changed.
Result<ObjectId> WriteLeaf(TxnScope* scope, uint64_t ino, const InodeRecord& rec) {
  if (!rec.dirty && rec.cached) return *rec.cached;
  ObjectId id;
  if (rec.type == FileType::kSymlink) {
    VEXFS_ASSIGN_OR_RETURN(id, scope->objects().Put(ObjectType::kChunk, rec.symlink_target));
  } else {  // a file, or a special file's empty manifest that carries its xattrs
    VEXFS_ASSIGN_OR_RETURN(Manifest m, scope->BuildManifest(ino, rec));
    VEXFS_ASSIGN_OR_RETURN(id, scope->objects().Put(ObjectType::kManifest, EncodeManifest(m)));
  }
  VEXFS_RETURN_IF_ERROR(scope->MarkClean(ino, id));
  return id;
}

Result<ObjectId> WriteDir(TxnScope* scope, uint64_t ino, int depth) {
  VEXFS_ASSIGN_OR_RETURN(InodeRecord rec, scope->LoadDir(ino));
  if (!rec.dirty && rec.cached) return *rec.cached;
  if (depth > 4096) return Status::Corruption("directory nesting deeper than 4096");
  Tree tree;
  VEXFS_ASSIGN_OR_RETURN(auto entries, scope->ListEntries(ino));
  tree.entries.reserve(entries.size());
  for (const auto& [name, dv] : entries) {
    VEXFS_ASSIGN_OR_RETURN(InodeRecord child, scope->LoadInode(dv.ino));
    ObjectId id;
    if (child.type == FileType::kDirectory) {
      VEXFS_ASSIGN_OR_RETURN(id, WriteDir(scope, dv.ino, depth + 1));
    } else {
      VEXFS_ASSIGN_OR_RETURN(id, WriteLeaf(scope, dv.ino, child));
    }
    tree.entries.push_back(EntryFor(name, child, id));
  }
  VEXFS_ASSIGN_OR_RETURN(tree.xattrs, scope->LoadXattrs(ino));
  VEXFS_ASSIGN_OR_RETURN(ObjectId id, scope->objects().Put(ObjectType::kTree, EncodeTree(tree)));
  VEXFS_RETURN_IF_ERROR(scope->MarkClean(ino, id));
  return id;
}

}  // namespace

Result<ObjectId> WriteWorkingTree(TxnScope* scope) { return WriteDir(scope, kRootIno, 0); }

}  // namespace vexfs::internal
