// Reads a store's whole observable state in process (see store_state.h).
#include "cli/store_state.h"

#include <cstdint>
#include <memory>
#include <vector>

#include "vexfs/status.h"
#include "vexfs/store.h"
#include "vexfs/types.h"

namespace vexfs::cli_test {
namespace {

using nlohmann::json;

// Bytes as JSON without assuming they are UTF-8 (a dump of a string that is not
// would throw).
json Bytes(const std::string& bytes) {
  return json::binary(std::vector<std::uint8_t>(bytes.begin(), bytes.end()));
}

json AttributesJson(const std::string& path, const Attributes& a) {
  return {{"path", path},       {"ino", a.ino},         {"type", FileTypeName(a.type)},
          {"mode", a.mode},     {"uid", a.uid},         {"gid", a.gid},
          {"size", a.size},     {"nlink", a.nlink},     {"rdev", a.rdev},
          {"mtime_ns", a.mtime}, {"ctime_ns", a.ctime}};
}

// What a node holds besides its attributes: a file's bytes, a link's target, and
// the extended attributes of either.
Status AddContent(TreeView& tree, const std::string& path, FileType type, json* node) {
  if (type == FileType::kRegular) {
    VEXFS_ASSIGN_OR_RETURN(std::string bytes, tree.ReadAll(path));
    (*node)["bytes"] = Bytes(bytes);
  } else if (type == FileType::kSymlink) {
    VEXFS_ASSIGN_OR_RETURN(std::string target, tree.ReadLink(path));
    (*node)["target"] = Bytes(target);
  }
  VEXFS_ASSIGN_OR_RETURN(XattrMap xattrs, tree.Xattrs(path));
  json& out = (*node)["xattrs"] = json::object();
  for (const auto& [name, value] : xattrs) out[name] = Bytes(value);
  return Status::Ok();
}

// Every node under directory `dir`, depth first in listing order.
Status AddTree(TreeView& tree, const std::string& dir, json* nodes) {
  VEXFS_ASSIGN_OR_RETURN(std::vector<DirEntry> entries, tree.List(dir));
  for (const DirEntry& e : entries) {
    const std::string path = dir.empty() ? e.name : dir + "/" + e.name;
    json node = AttributesJson(path, e.attr);
    VEXFS_RETURN_IF_ERROR(AddContent(tree, path, e.attr.type, &node));
    nodes->push_back(std::move(node));
    if (e.attr.type == FileType::kDirectory) VEXFS_RETURN_IF_ERROR(AddTree(tree, path, nodes));
  }
  return Status::Ok();
}

json SnapshotJson(const CommitInfo& c) {
  json parents = json::array(), roots = json::object();
  for (const ObjectId& p : c.parents) parents.push_back(p.ToHex());
  for (const auto& [name, root] : c.roots) roots[name] = root.ToHex();
  return {{"id", c.id.ToHex()}, {"tree", c.tree.ToHex()}, {"parents", parents},
          {"time_ns", c.time},  {"branch", c.branch},     {"message", c.message},
          {"meta", c.meta},     {"names", c.names},       {"roots", roots}};
}

Status ReadInto(Store& store, StoreState* state) {
  VEXFS_ASSIGN_OR_RETURN(std::unique_ptr<WorkingTree> tree, store.Tree());
  state->tree = json::array();
  VEXFS_RETURN_IF_ERROR(AddTree(*tree, "", &state->tree));
  VEXFS_ASSIGN_OR_RETURN(std::vector<CommitInfo> snapshots, store.ListSnapshots());
  state->snapshots = json::array();
  for (const CommitInfo& c : snapshots) state->snapshots.push_back(SnapshotJson(c));
  VEXFS_ASSIGN_OR_RETURN(std::vector<BranchInfo> branches, store.ListBranches());
  state->branches = json::array();
  for (const BranchInfo& b : branches) {
    state->branches.push_back({{"name", b.name},
                               {"head", b.head ? b.head->ToHex() : ""},
                               {"current", b.current}});
  }
  return Status::Ok();
}

Result<std::unique_ptr<Store>> OpenReadOnly(const std::string& path) {
  StoreOptions options;
  options.read_only = true;
  return Store::Open(path, options);
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const StoreState& s) {
  if (!s.error.empty()) os << "error: " << s.error << "\n";
  return os << "tree: " << s.tree.dump() << "\nsnapshots: " << s.snapshots.dump()
            << "\nbranches: " << s.branches.dump();
}

StoreState ReadStoreState(const std::string& path) {
  StoreState state;
  auto store = OpenReadOnly(path);
  Status st = store.ok() ? ReadInto(**store, &state) : store.status();
  if (!st.ok()) state.error = st.ToString();
  return state;
}

std::vector<std::string> FsckProblems(const std::string& path) {
  auto store = OpenReadOnly(path);
  if (!store.ok()) return {"cannot open the store: " + store.status().ToString()};
  auto report = (*store)->Fsck();
  if (!report.ok()) return {"fsck failed: " + report.status().ToString()};
  return report->problems;
}

}  // namespace vexfs::cli_test
