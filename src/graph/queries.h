// The graph's reads over either record source: a node or an edge by id, nodes
// by kind, thread and action state, neighbours to a depth, and counts; each
// leaves out what the read options say it does not see (retired items, items
// not valid at the chosen time).
#ifndef VEXFS_GRAPH_QUERIES_H_
#define VEXFS_GRAPH_QUERIES_H_

#include <functional>
#include <optional>

#include "graph/record_source.h"
#include "vexfs/graph.h"

namespace vexfs::graph {

// Whether a read with `read` sees an item with `times`; `now` stands for a
// valid_at of 0.
bool Visible(const GraphTimes& times, const GraphReadOptions& read, TimeNs now);

// Records as they are stored, whatever the read options.
Result<std::optional<GraphNode>> ReadNode(const RecordSource& source, const GraphId& id);
Result<std::optional<GraphEdge>> ReadEdge(const RecordSource& source, const GraphId& id);

// Each node `query` selects (its limit aside), in no order, until `visit`
// returns false; the node may be moved from.
using NodeVisitor = std::function<bool(GraphNode& node)>;
Status VisitQueryNodes(const RecordSource& source, const GraphQuery& query, TimeNs now,
                       const NodeVisitor& visit);
Result<std::vector<GraphNode>> QueryNodes(const RecordSource& source, const GraphQuery& query,
                                          TimeNs now);
Result<Neighborhood> QueryNeighbors(const RecordSource& source, const NeighborQuery& query,
                                    TimeNs now);
Result<GraphStats> CountRecords(const RecordSource& source);

}  // namespace vexfs::graph

#endif  // VEXFS_GRAPH_QUERIES_H_
