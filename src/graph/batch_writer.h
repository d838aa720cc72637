// Applies a GraphBatch to a working graph, item by item, inside the caller's
// transaction: the rules of each operation (upserts, links, supersedes,
// invalidation, retirement, pending-action states) live here. The first bad
// item stops the batch with an error naming it; the caller aborts the
// transaction, so a batch writes all of its items or none.
#ifndef VEXFS_GRAPH_BATCH_WRITER_H_
#define VEXFS_GRAPH_BATCH_WRITER_H_

#include <string>

#include "graph/working_graph.h"
#include "vexfs/graph.h"

namespace vexfs::graph {

class BatchWriter {
 public:
  // `now` is the record time of every write, and the valid time of items that
  // give none.
  BatchWriter(WorkingGraph& graph, TimeNs now) : graph_(graph), now_(now) {}

  Result<GraphWriteResult> Apply(const GraphBatch& batch);

 private:
  using Item = GraphBatch::Item;
  Status AddNode(const Item& item, const std::string& name);
  Status Link(const Item& item, const std::string& name);
  Status Invalidate(const Item& item, const std::string& name);
  Status Retire(const Item& item, const std::string& name);
  Status SetAction(const Item& item, const std::string& name);

  Result<GraphNode> UpdatedNode(const Item& item, GraphNode node, const std::string& props,
                                const std::string& name) const;
  Result<GraphNode> LiveNode(const GraphId& id, const std::string& name) const;
  Status EndOlderFact(const GraphNode& newer, const GraphId& older, const std::string& name);
  Result<bool> SupersedesReach(const GraphId& start, const GraphId& target) const;
  Status Count(Result<bool> changed);

  WorkingGraph& graph_;
  TimeNs now_;
  GraphWriteResult result_;
};

}  // namespace vexfs::graph

#endif  // VEXFS_GRAPH_BATCH_WRITER_H_
