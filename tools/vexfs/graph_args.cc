// Node references, read options and text lines of the graph commands (graph_args.h).
#include "graph_args.h"

#include "vexfs/json.h"

namespace vexfs::cli {

void AddGraphReadOptions(CLI::App* cmd, GraphReadArgs* args) {
  cmd->add_option("--at", args->at, "Read the graph of this snapshot (name or id)");
  cmd->add_option("--branch", args->branch, "Read this branch's working graph (default: current)");
  cmd->add_option("--valid-at", args->valid_at,
                  "Items valid at this time (seconds, YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ; default: now)");
  cmd->add_flag("--all", args->all, "Also items no longer valid, and retired ones");
}

Result<GraphReadOptions> ToReadOptions(const GraphReadArgs& args) {
  GraphReadOptions read;
  read.snapshot = args.at;
  read.branch = args.branch;
  if (!args.valid_at.empty()) {
    VEXFS_ASSIGN_OR_RETURN(read.valid_at, ParseTime(args.valid_at));
  }
  read.include_invalid = args.all;
  read.include_retired = args.all;
  return read;
}

std::string NodeLine(const GraphNode& node) {
  std::string text = node.text.substr(0, node.text.find('\n'));
  if (text.size() > 80) text = text.substr(0, 77) + "...";
  std::string line = node.id.ToHex() + "  " + node.kind;
  if (node.action != ActionState::kNone) line += std::string(" (") + ActionStateName(node.action) + ")";
  if (!node.thread.empty()) line += "  [" + node.thread + "]";
  return line + "  " + text;
}

std::string EdgeLine(const GraphEdge& edge) {
  return edge.id.ToHex() + "  " + edge.from.ToHex() + " -" + edge.kind + "-> " + edge.to.ToHex();
}

}  // namespace vexfs::cli
