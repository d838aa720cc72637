// GraphView: the nodes behind .vexfs/graph/ (see graph_view.h).
#include "fuse/graph_view.h"

#include <set>

#include "common/percent_encoding.h"
#include "vexfs/json.h"

namespace vexfs::fuse {
namespace {

std::string FileNameOf(const GraphNode& node) {
  return node.id.ToHex() + std::string(kNodeFileSuffix);
}

std::string JsonTextOf(const GraphNode& node) {
  return GraphNodeJson(node).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace

std::string ThreadDirName(std::string_view thread) { return PercentEncode(thread); }

Result<std::string> ThreadOfDirName(std::string_view dir_name) { return PercentDecode(dir_name); }

Result<std::vector<std::string>> GraphView::Groups(GraphGrouping grouping) const {
  GraphQuery query;
  query.read.branch = branch_;
  VEXFS_ASSIGN_OR_RETURN(std::vector<GraphNode> nodes, graph_->Nodes(query));
  std::set<std::string> names;
  for (const GraphNode& n : nodes) {
    if (grouping == GraphGrouping::kKind) {
      names.insert(n.kind);
    } else if (!n.thread.empty()) {
      names.insert(ThreadDirName(n.thread));
    }
  }
  return std::vector<std::string>(names.begin(), names.end());
}

Result<std::vector<GraphNode>> GraphView::NodesOf(GraphGrouping grouping,
                                                  std::string_view dir_name) const {
  GraphQuery query;
  query.read.branch = branch_;
  if (grouping == GraphGrouping::kKind) {
    query.kind = std::string(dir_name);
  } else {
    auto thread = ThreadOfDirName(dir_name);
    if (!thread.ok() || thread->empty()) return std::vector<GraphNode>();  // no such thread
    query.thread = *thread;
  }
  return graph_->Nodes(query);
}

Result<std::vector<std::string>> GraphView::NodeFiles(GraphGrouping grouping,
                                                      std::string_view dir_name) const {
  VEXFS_ASSIGN_OR_RETURN(std::vector<GraphNode> nodes, NodesOf(grouping, dir_name));
  std::vector<std::string> files;
  files.reserve(nodes.size());
  for (const GraphNode& n : nodes) files.push_back(FileNameOf(n));
  return files;
}

Result<bool> GraphView::HasGroup(GraphGrouping grouping, std::string_view dir_name) const {
  VEXFS_ASSIGN_OR_RETURN(std::vector<GraphNode> nodes, NodesOf(grouping, dir_name));
  return !nodes.empty();
}

Result<std::optional<std::string>> GraphView::NodeText(GraphGrouping grouping,
                                                       std::string_view dir_name,
                                                       std::string_view file_name) const {
  if (!file_name.ends_with(kNodeFileSuffix)) return std::optional<std::string>();
  auto id = GraphId::FromHex(file_name.substr(0, file_name.size() - kNodeFileSuffix.size()));
  if (!id.ok()) return std::optional<std::string>();
  GraphReadOptions read;
  read.branch = branch_;
  VEXFS_ASSIGN_OR_RETURN(std::optional<GraphNode> node, graph_->Node(*id, read));
  if (!node) return std::optional<std::string>();
  bool in_group = grouping == GraphGrouping::kKind ? node->kind == dir_name
                                                   : ThreadDirName(node->thread) == dir_name &&
                                                         !node->thread.empty();
  if (!in_group) return std::optional<std::string>();
  return std::optional<std::string>(JsonTextOf(*node));
}

}  // namespace vexfs::fuse
