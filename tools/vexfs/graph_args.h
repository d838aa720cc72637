// What the graph commands share: the read options every read command takes,
// and the one-line text form of nodes and edges. Nodes are named as
// vexfs::ParseGraphRef reads them.
#ifndef VEXFS_TOOLS_GRAPH_ARGS_H_
#define VEXFS_TOOLS_GRAPH_ARGS_H_

#include <CLI/CLI.hpp>

#include <string>

#include "vexfs/graph.h"

namespace vexfs::cli {

// --at, --branch, --valid-at and --all, as given.
struct GraphReadArgs {
  std::string at;
  std::string branch;
  std::string valid_at;
  bool all = false;
};
void AddGraphReadOptions(CLI::App* cmd, GraphReadArgs* args);
Result<GraphReadOptions> ToReadOptions(const GraphReadArgs& args);

// "<id> <kind> [thread] <first line of text>".
std::string NodeLine(const GraphNode& node);
// "<id> <from> -<kind>-> <to>".
std::string EdgeLine(const GraphEdge& edge);

}  // namespace vexfs::cli

#endif  // VEXFS_TOOLS_GRAPH_ARGS_H_
