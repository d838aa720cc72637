// Turns the records that differ between two graphs into what changed for a
// reader: nodes and edges added, removed, modified, invalidated, retired,
// pending actions moved, and facts superseded.
#ifndef VEXFS_GRAPH_GRAPH_DIFF_H_
#define VEXFS_GRAPH_GRAPH_DIFF_H_

#include <optional>
#include <string>

#include "graph/record_source.h"
#include "vexfs/graph.h"

namespace vexfs::graph {

class GraphDiffBuilder {
 public:
  // `newer` reads the newer graph (for the nodes a supersedes edge names).
  explicit GraphDiffBuilder(const RecordSource& newer) : newer_(newer) {}

  // One record that differs (nullopt where a side lacks it).
  Status Add(const std::string& key, const std::optional<std::string>& older,
             const std::optional<std::string>& newer);
  // Nodes first, then edges, each by id.
  GraphDiff Finish();

 private:
  Status AddNode(const GraphId& id, const std::optional<std::string>& older,
                 const std::optional<std::string>& newer);
  Status AddEdge(const std::string& key, const std::optional<std::string>& older,
                 const std::optional<std::string>& newer);

  const RecordSource& newer_;
  GraphDiff node_changes_;
  GraphDiff edge_changes_;
};

}  // namespace vexfs::graph

#endif  // VEXFS_GRAPH_GRAPH_DIFF_H_
