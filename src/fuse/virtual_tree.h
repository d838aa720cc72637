// The read-only `.vexfs/` tree at the root of a mount:
//
//   .vexfs/status                  JSON: branch, index queue, last snapshot
//   .vexfs/search/<query>/         one symlink per hit, "01-name" -> the file, and
//                                  results.jsonl (rank, path, score, range, snippet)
//   .vexfs/snapshots/<name>/...    any snapshot, files and directories as they were
//   .vexfs/graph/by-kind/<kind>/<id>.json, .vexfs/graph/by-thread/<thread>/<id>.json
//                                  the memory graph's nodes (graph_view.h)
//
// `.vexfs` is found by name but not listed in the root (like ZFS's hidden .zfs),
// so find, du and cp -r of the mount do not walk every snapshot.
//
// Inode numbers: the seven fixed nodes have small numbers; every other node's
// number is a hash of what it shows (query, snapshot and path), so the same node
// always has the same number. A node lives while the kernel holds a lookup on it.
// Searches run when a query directory is looked up, and again at a later lookup
// once the results are over 0.25 s old (the kernel itself caches the entry for
// 0.5 s, which bounds how often that happens).
//
// Thread-safety: every method may be called from many threads at once.
#ifndef VEXFS_FUSE_VIRTUAL_TREE_H_
#define VEXFS_FUSE_VIRTUAL_TREE_H_

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "fuse/filesystem.h"
#include "fuse/graph_view.h"
#include "vexfs/graph.h"
#include "vexfs/index.h"
#include "vexfs/store.h"

namespace vexfs::fuse {

class VirtualTree {
 public:
  // `index` and `graph` may be null: then there is no search (graph) view.
  VirtualTree(Store* store, Index* index, Graph* graph, std::string branch);
  ~VirtualTree();

  // Attributes of `.vexfs` itself (the root's hidden entry).
  Result<Attributes> Root();
  Result<Attributes> Lookup(uint64_t parent, std::string_view name);
  void Forget(uint64_t ino, uint64_t count);
  Result<Attributes> GetAttr(uint64_t ino);
  Result<std::vector<DirItem>> List(uint64_t ino);
  Result<std::string> ReadLink(uint64_t ino);
  // Content made on open (status, results.jsonl); nullopt for other nodes.
  Result<std::optional<std::string>> Generate(uint64_t ino);
  // Bytes of a snapshot file.
  Result<std::string> Read(uint64_t ino, uint64_t offset, uint64_t length);
  Result<XattrMap> Xattrs(uint64_t ino);

 private:
  struct Query;
  struct Node;

  Result<std::shared_ptr<Node>> Find(uint64_t ino);
  // The node for `key`, made by `make` if it is not known; counts one lookup.
  Result<Attributes> Remember(const std::string& key,
                              const std::function<Result<std::shared_ptr<Node>>()>& make);
  Result<Attributes> AttrOf(const Node& node);
  Result<std::shared_ptr<Node>> MakeQuery(std::string_view name);
  Result<std::shared_ptr<Node>> MakeSnapshotNode(const std::string& snapshot,
                                                 const std::string& path);
  Result<Attributes> LookupInQuery(Node& query, std::string_view name);
  Result<Attributes> LookupInGraph(uint64_t parent, std::string_view name);
  Result<Attributes> LookupGraphFile(const Node& set, std::string_view name);
  Result<std::vector<DirItem>> ListGraph(uint64_t ino);
  // Runs `dir`'s query again if something was committed since it last ran.
  Status Refresh(Node& dir);
  Result<std::string> StatusText();

  Store* store_;
  Index* index_;
  std::optional<GraphView> graph_;
  std::string branch_;
  TimeNs mounted_at_;
  std::mutex mu_;
  std::unordered_map<uint64_t, std::shared_ptr<Node>> nodes_;
};

}  // namespace vexfs::fuse

#endif  // VEXFS_FUSE_VIRTUAL_TREE_H_
