// Tree selection and path splitting for CLI commands.
#include "tree_access.h"

#include "common/names.h"

namespace vexfs::cli {

Result<std::unique_ptr<TreeView>> OpenTreeView(Store& store, const std::string& at,
                                               const std::string& branch) {
  if (!at.empty()) {
    VEXFS_ASSIGN_OR_RETURN(auto view, store.OpenSnapshot(at));
    return std::unique_ptr<TreeView>(std::move(view));
  }
  VEXFS_ASSIGN_OR_RETURN(auto tree, store.Tree(branch));
  return std::unique_ptr<TreeView>(std::move(tree));
}

OpenedView OpenViewOrFail(Context& ctx, const std::string& at, const std::string& branch) {
  OpenedView opened;
  opened.store = ctx.OpenStore();
  if (!opened.store) return opened;
  auto view = OpenTreeView(*opened.store, at, branch);
  if (!view.ok()) {
    ctx.Fail(view.status());
    return opened;
  }
  opened.view = std::move(view).value();
  return opened;
}

Result<ParentAndName> SplitParent(const std::string& path) {
  VEXFS_ASSIGN_OR_RETURN(auto parts, SplitStorePath(path));
  ParentAndName out;
  if (parts.empty()) return out;
  out.name = parts.back();
  parts.pop_back();
  for (const std::string& p : parts) out.parent = JoinPath(out.parent, p);
  return out;
}

Result<std::string> CanonicalPath(const std::string& path) {
  VEXFS_ASSIGN_OR_RETURN(auto parts, SplitStorePath(path));
  std::string out;
  for (const std::string& p : parts) out = JoinPath(out, p);
  return out;
}

std::string JoinPath(const std::string& dir, const std::string& name) {
  if (dir.empty()) return name;
  if (name.empty()) return dir;
  return dir + "/" + name;
}

}  // namespace vexfs::cli
