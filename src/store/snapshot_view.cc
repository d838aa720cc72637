// SnapshotView: reads a snapshot in place by walking its tree objects.
#include "store/store_impl.h"
#include "vexfs/paths.h"

namespace vexfs {

using internal::ObjectTable;
using internal::TreeEntry;

namespace {

Attributes ToAttributes(const TreeEntry& e) {
  Attributes a;
  internal::CopySharedAttributes(e, &a);
  a.nlink = e.type == FileType::kDirectory ? 2 : 1;
  a.atime = a.ctime = e.mtime;
  return a;
}

// The entry at `path`, with the root's attributes taken from the commit.
Result<TreeEntry> ResolveEntry(const ObjectTable& objects, const ObjectId& commit_id,
                               std::string_view path) {
  VEXFS_ASSIGN_OR_RETURN(auto parts, SplitStorePath(path));
  VEXFS_ASSIGN_OR_RETURN(internal::Commit commit, objects.GetCommit(commit_id));
  TreeEntry cur = commit.root;
  cur.type = FileType::kDirectory;
  cur.id = commit.tree;
  std::string walked;
  for (const std::string& part : parts) {
    if (cur.type != FileType::kDirectory) {
      return Status::NotDirectory("'" + walked + "' is not a directory in the snapshot");
    }
    walked += (walked.empty() ? "" : "/") + part;
    VEXFS_ASSIGN_OR_RETURN(internal::Tree tree, objects.GetTree(cur.id));
    auto it = std::lower_bound(
        tree.entries.begin(), tree.entries.end(), part,
        [](const TreeEntry& e, const std::string& name) { return e.name < name; });
    if (it == tree.entries.end() || it->name != part) {
      return Status::NotFound("'" + walked + "' does not exist in the snapshot");
    }
    cur = *it;
  }
  return cur;
}

// Runs `fn` with an object table inside a read transaction.
template <typename Fn>
Status WithObjects(internal::StoreImpl* impl, Fn&& fn) {
  internal::Txn txn;
  VEXFS_RETURN_IF_ERROR(impl->BeginTxn(&txn, /*write=*/false));
  ObjectTable objects(&txn, impl->dbs().objects);
  return fn(objects);
}

}  // namespace

Result<Attributes> SnapshotView::Stat(std::string_view path) {
  Attributes out;
  VEXFS_RETURN_IF_ERROR(WithObjects(impl_, [&](const ObjectTable& objects) -> Status {
    VEXFS_ASSIGN_OR_RETURN(TreeEntry e, ResolveEntry(objects, commit_, path));
    out = ToAttributes(e);
    return Status::Ok();
  }));
  return out;
}

Result<std::vector<DirEntry>> SnapshotView::List(std::string_view path) {
  std::vector<DirEntry> out;
  VEXFS_RETURN_IF_ERROR(WithObjects(impl_, [&](const ObjectTable& objects) -> Status {
    VEXFS_ASSIGN_OR_RETURN(TreeEntry e, ResolveEntry(objects, commit_, path));
    if (e.type != FileType::kDirectory) {
      return Status::NotDirectory("'" + std::string(path) + "' is not a directory");
    }
    VEXFS_ASSIGN_OR_RETURN(internal::Tree tree, objects.GetTree(e.id));
    for (const TreeEntry& child : tree.entries) {
      out.push_back(DirEntry{child.name, ToAttributes(child)});
    }
    return Status::Ok();
  }));
  return out;
}

Result<std::string> SnapshotView::Read(std::string_view path, uint64_t offset,
                                       uint64_t length) {
  std::string out;
  VEXFS_RETURN_IF_ERROR(WithObjects(impl_, [&](const ObjectTable& objects) -> Status {
    VEXFS_ASSIGN_OR_RETURN(TreeEntry e, ResolveEntry(objects, commit_, path));
    if (e.type == FileType::kDirectory) {
      return Status::IsDirectory("'" + std::string(path) + "' is a directory");
    }
    if (e.type != FileType::kRegular) {
      return Status::InvalidArgument("'" + std::string(path) + "' is a " +
                                     FileTypeName(e.type) + ", not a regular file");
    }
    VEXFS_ASSIGN_OR_RETURN(internal::Manifest m, objects.GetManifest(e.id));
    VEXFS_ASSIGN_OR_RETURN(out, internal::ReadManifestRange(objects, m, offset, length));
    return Status::Ok();
  }));
  return out;
}

Result<std::string> SnapshotView::ReadLink(std::string_view path) {
  std::string out;
  VEXFS_RETURN_IF_ERROR(WithObjects(impl_, [&](const ObjectTable& objects) -> Status {
    VEXFS_ASSIGN_OR_RETURN(TreeEntry e, ResolveEntry(objects, commit_, path));
    if (e.type != FileType::kSymlink) {
      return Status::InvalidArgument("'" + std::string(path) + "' is not a symlink");
    }
    VEXFS_ASSIGN_OR_RETURN(out, objects.Get(e.id, internal::ObjectType::kChunk));
    return Status::Ok();
  }));
  return out;
}

Result<XattrMap> SnapshotView::Xattrs(std::string_view path) {
  XattrMap out;
  VEXFS_RETURN_IF_ERROR(WithObjects(impl_, [&](const ObjectTable& objects) -> Status {
    VEXFS_ASSIGN_OR_RETURN(TreeEntry e, ResolveEntry(objects, commit_, path));
    if (e.type == FileType::kDirectory) {
      VEXFS_ASSIGN_OR_RETURN(internal::Tree tree, objects.GetTree(e.id));
      out = tree.xattrs;
    } else if (e.type != FileType::kSymlink) {  // files and special files
      VEXFS_ASSIGN_OR_RETURN(internal::Manifest m, objects.GetManifest(e.id));
      out = m.xattrs;
    }
    return Status::Ok();
  }));
  return out;
}

}  // namespace vexfs
