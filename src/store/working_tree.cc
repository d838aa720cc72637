// WorkingTree: transactions around TreeEditor, and path-based reads (TreeView).
#include "store/store_impl.h"

namespace vexfs {

Result<std::string> TreeView::ReadAll(std::string_view path) {
  VEXFS_ASSIGN_OR_RETURN(Attributes attr, Stat(path));
  if (attr.type == FileType::kDirectory) {
    return Status::IsDirectory("'" + std::string(path) + "' is a directory");
  }
  if (attr.type == FileType::kSymlink) return ReadLink(path);
  return Read(path, 0, attr.size);
}

Status WorkingTree::Edit(const std::function<Status(TreeEditor&)>& edit) {
  internal::TxnScope scope(impl_);
  VEXFS_RETURN_IF_ERROR(scope.Begin(/*write=*/true, branch_));
  TreeEditor editor(&scope);
  VEXFS_RETURN_IF_ERROR(edit(editor));
  return scope.Commit();
}

Status WorkingTree::View(const std::function<Status(TreeEditor&)>& read) {
  internal::TxnScope scope(impl_);
  VEXFS_RETURN_IF_ERROR(scope.Begin(/*write=*/false, branch_));
  TreeEditor editor(&scope);
  return read(editor);
}

Result<Attributes> WorkingTree::Stat(std::string_view path) {
  Attributes out;
  VEXFS_RETURN_IF_ERROR(View([&](TreeEditor& ed) -> Status {
    VEXFS_ASSIGN_OR_RETURN(uint64_t ino, ed.ResolvePath(path));
    VEXFS_ASSIGN_OR_RETURN(out, ed.GetAttr(ino));
    return Status::Ok();
  }));
  return out;
}

Result<std::vector<DirEntry>> WorkingTree::List(std::string_view path) {
  std::vector<DirEntry> out;
  VEXFS_RETURN_IF_ERROR(View([&](TreeEditor& ed) -> Status {
    VEXFS_ASSIGN_OR_RETURN(uint64_t ino, ed.ResolvePath(path));
    auto entries = ed.ReadDir(ino);
    if (entries.status().code() == StatusCode::kNotDirectory) {
      return Status::NotDirectory("'" + std::string(path) + "' is not a directory");
    }
    VEXFS_ASSIGN_OR_RETURN(out, std::move(entries));
    return Status::Ok();
  }));
  return out;
}

Result<std::string> WorkingTree::Read(std::string_view path, uint64_t offset,
                                      uint64_t length) {
  std::string out;
  VEXFS_RETURN_IF_ERROR(View([&](TreeEditor& ed) -> Status {
    VEXFS_ASSIGN_OR_RETURN(uint64_t ino, ed.ResolvePath(path));
    auto data = ed.Read(ino, offset, length);
    if (data.status().code() == StatusCode::kIsDirectory) {
      return Status::IsDirectory("'" + std::string(path) + "' is a directory");
    }
    VEXFS_ASSIGN_OR_RETURN(out, std::move(data));
    return Status::Ok();
  }));
  return out;
}

Result<std::string> WorkingTree::ReadLink(std::string_view path) {
  std::string out;
  VEXFS_RETURN_IF_ERROR(View([&](TreeEditor& ed) -> Status {
    VEXFS_ASSIGN_OR_RETURN(uint64_t ino, ed.ResolvePath(path));
    VEXFS_ASSIGN_OR_RETURN(out, ed.ReadLink(ino));
    return Status::Ok();
  }));
  return out;
}

Result<XattrMap> WorkingTree::Xattrs(std::string_view path) {
  XattrMap out;
  VEXFS_RETURN_IF_ERROR(View([&](TreeEditor& ed) -> Status {
    VEXFS_ASSIGN_OR_RETURN(uint64_t ino, ed.ResolvePath(path));
    VEXFS_ASSIGN_OR_RETURN(out, ed.ListXattrs(ino));
    return Status::Ok();
  }));
  return out;
}

}  // namespace vexfs
