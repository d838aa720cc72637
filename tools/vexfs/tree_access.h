// Choosing which tree a CLI command reads (a branch's working tree or a snapshot)
// and splitting store paths into (parent, name).
#ifndef VEXFS_TOOLS_TREE_ACCESS_H_
#define VEXFS_TOOLS_TREE_ACCESS_H_

#include <memory>
#include <string>

#include "cli.h"
#include "vexfs/store.h"

namespace vexfs::cli {

// A snapshot view when `at` is set, else the working tree of `branch` ("" =
// current).
Result<std::unique_ptr<TreeView>> OpenTreeView(Store& store, const std::string& at,
                                               const std::string& branch);

// A store opened for a read command, with the tree it reads. The view points
// into the store, so both travel together. `view` is null when opening either
// failed; the error has then been reported through `ctx`.
struct OpenedView {
  std::unique_ptr<Store> store;
  std::unique_ptr<TreeView> view;
};
OpenedView OpenViewOrFail(Context& ctx, const std::string& at, const std::string& branch);

struct ParentAndName {
  std::string parent;  // "" for the root
  std::string name;    // "" only for the root itself
};
// Validates `path` and splits off its last component.
Result<ParentAndName> SplitParent(const std::string& path);
// Validates `path` and writes it without leading or trailing slashes: "/a/b/" -> "a/b",
// "/" -> "".
Result<std::string> CanonicalPath(const std::string& path);
// "a/b" + "c" -> "a/b/c"; "" + "c" -> "c".
std::string JoinPath(const std::string& dir, const std::string& name);

}  // namespace vexfs::cli

#endif  // VEXFS_TOOLS_TREE_ACCESS_H_
