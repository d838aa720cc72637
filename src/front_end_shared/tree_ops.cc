// mkdir, rm and mv on a working tree, shared by the CLI and the MCP server.
#include "vexfs/tree_ops.h"

#include <unistd.h>

#include <string>

#include "vexfs/paths.h"

namespace vexfs {
namespace {

Status RemoveTree(TreeEditor& editor, uint64_t parent, const std::string& name) {
  VEXFS_ASSIGN_OR_RETURN(Attributes attr, editor.Lookup(parent, name));
  if (attr.type != FileType::kDirectory) return editor.Unlink(parent, name);
  VEXFS_ASSIGN_OR_RETURN(auto entries, editor.ListNames(attr.ino));
  for (const auto& e : entries) VEXFS_RETURN_IF_ERROR(RemoveTree(editor, attr.ino, e.name));
  return editor.Rmdir(parent, name);
}

// The parent and last name of `path`, refusing the root (`what` says why).
Result<std::pair<uint64_t, std::string>> ParentOf(TreeEditor& editor, std::string_view path,
                                                  const char* what) {
  VEXFS_ASSIGN_OR_RETURN(ParentAndName pn, SplitParent(path));
  if (pn.name.empty()) return Status::InvalidArgument(what);
  VEXFS_ASSIGN_OR_RETURN(uint64_t parent, ResolveParentDir(editor, path));
  return std::make_pair(parent, pn.name);
}

}  // namespace

TreeEditor::NewNode CallerOwnedNode(uint32_t mode) { return {mode, ::geteuid(), ::getegid()}; }

Result<uint64_t> ResolveParentDir(TreeEditor& editor, std::string_view path) {
  VEXFS_ASSIGN_OR_RETURN(ParentAndName pn, SplitParent(path));
  auto parent = editor.ResolvePath(pn.parent);
  if (!parent.ok() && parent.status().IsNotFound()) {
    return Status::NotFound("parent directory '" + pn.parent + "' does not exist");
  }
  return parent;
}

Status MakeDirectory(TreeEditor& editor, std::string_view path, bool parents,
                     const TreeEditor::NewNode& node) {
  std::string context = "mkdir '" + std::string(path) + "'";
  if (parents) return editor.MakeDirs(path, node).status().WithContext(context);
  VEXFS_ASSIGN_OR_RETURN(ParentAndName pn, SplitParent(path));
  if (pn.name.empty()) return Status::AlreadyExists("the store root already exists");
  VEXFS_ASSIGN_OR_RETURN(uint64_t parent, ResolveParentDir(editor, path));
  return editor.Mkdir(parent, pn.name, node).status().WithContext(context);
}

Status RemovePath(TreeEditor& editor, std::string_view path, bool recursive) {
  std::string context = "rm '" + std::string(path) + "'";
  auto where = ParentOf(editor, path, "cannot remove the store root");
  VEXFS_RETURN_IF_ERROR(where.status().WithContext(context));
  auto& [parent, name] = *where;
  if (recursive) return RemoveTree(editor, parent, name).WithContext(context);
  Status st = editor.Unlink(parent, name);
  if (st.code() == StatusCode::kIsDirectory) {
    return Status::IsDirectory("'" + std::string(path) + "' is a directory (remove it recursively)");
  }
  return st.WithContext(context);
}

Status RemoveEmptyDirectory(TreeEditor& editor, std::string_view path) {
  std::string context = "rmdir '" + std::string(path) + "'";
  auto where = ParentOf(editor, path, "cannot remove the store root");
  VEXFS_RETURN_IF_ERROR(where.status().WithContext(context));
  return editor.Rmdir(where->first, where->second).WithContext(context);
}

Status MovePath(TreeEditor& editor, std::string_view from, std::string_view to, bool replace,
                std::string* moved_to) {
  std::string context = "mv '" + std::string(from) + "' '" + std::string(to) + "'";
  auto src = ParentOf(editor, from, "cannot move the store root");
  VEXFS_RETURN_IF_ERROR(src.status().WithContext(context));
  uint64_t dst_parent = 0;
  std::string dst_name;
  bool into_directory = false;
  auto target = editor.ResolvePath(to);
  if (target.ok()) {
    VEXFS_ASSIGN_OR_RETURN(Attributes attr, editor.GetAttr(*target));
    if (attr.type == FileType::kDirectory) {  // like mv: into an existing directory
      dst_parent = *target;
      dst_name = src->second;
      into_directory = true;
    }
  }
  if (!into_directory) {
    auto dst = ParentOf(editor, to, "cannot replace the store root");
    VEXFS_RETURN_IF_ERROR(dst.status().WithContext(context));
    std::tie(dst_parent, dst_name) = *dst;
  }
  unsigned flags = replace ? TreeEditor::kRenameDefault : TreeEditor::kRenameNoReplace;
  VEXFS_RETURN_IF_ERROR(
      editor.Rename(src->first, src->second, dst_parent, dst_name, flags).WithContext(context));
  if (moved_to != nullptr) {
    VEXFS_ASSIGN_OR_RETURN(*moved_to, CanonicalPath(to));
    if (into_directory) *moved_to += (moved_to->empty() ? "" : "/") + dst_name;
  }
  return Status::Ok();
}

}  // namespace vexfs
