// What the mount's read-only `.vexfs/graph/` view shows of the working graph
// of the branch it serves (docs/mount.md):
//
//   .vexfs/graph/by-kind/<kind>/<node id>.json
//   .vexfs/graph/by-thread/<thread>/<node id>.json
//
// One JSON file per node, as `vexfs graph get --json` prints it. Like every
// default read, the view shows what is valid now and not retired. Thread
// names are percent-encoded into directory names (a thread may hold '/');
// kinds are [a-z0-9_] and need no encoding.
//
// Every call reads the graph afresh (one read transaction): a readdir of
// `by-kind` or `by-thread` lists every node, of a kind or a thread those of
// it, through the working graph's indexes.
#ifndef VEXFS_FUSE_GRAPH_VIEW_H_
#define VEXFS_FUSE_GRAPH_VIEW_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vexfs/graph.h"
#include "vexfs/status.h"

namespace vexfs::fuse {

// The two ways the view groups nodes.
enum class GraphGrouping { kKind, kThread };
inline constexpr std::string_view kByKindName = "by-kind";
inline constexpr std::string_view kByThreadName = "by-thread";
inline constexpr std::string_view kNodeFileSuffix = ".json";

class GraphView {
 public:
  GraphView(Graph* graph, std::string branch) : graph_(graph), branch_(std::move(branch)) {}

  // The directory names of every kind (or thread) some visible node has.
  Result<std::vector<std::string>> Groups(GraphGrouping grouping) const;
  // The file names of the visible nodes of the group named `dir_name`.
  Result<std::vector<std::string>> NodeFiles(GraphGrouping grouping, std::string_view dir_name) const;
  // Whether `dir_name` names a group with a visible node.
  Result<bool> HasGroup(GraphGrouping grouping, std::string_view dir_name) const;
  // The JSON text of the node `file_name` names (`<id>.json`), if it is
  // visible and in the group; nullopt otherwise.
  Result<std::optional<std::string>> NodeText(GraphGrouping grouping, std::string_view dir_name,
                                              std::string_view file_name) const;

 private:
  Result<std::vector<GraphNode>> NodesOf(GraphGrouping grouping, std::string_view dir_name) const;

  Graph* graph_;
  std::string branch_;
};

// A thread's directory name and back.
std::string ThreadDirName(std::string_view thread);
Result<std::string> ThreadOfDirName(std::string_view dir_name);

}  // namespace vexfs::fuse

#endif  // VEXFS_FUSE_GRAPH_VIEW_H_
