// Searching the memory graph's nodes with the index's search, and feeding the
// index the node texts the graph queues: the two places where vexfs::Db joins
// its graph and its index, neither of which knows the other.
#ifndef VEXFS_DB_GRAPH_SEARCH_H_
#define VEXFS_DB_GRAPH_SEARCH_H_

#include <functional>
#include <memory>

#include "vexfs/db.h"
#include "vexfs/graph.h"
#include "vexfs/index.h"
#include "vexfs/status.h"

namespace vexfs::db {

// Texts per Index::IndexTexts call: one drain batch's worth.
inline constexpr size_t kTextsPerDrain = 64;

// Indexes every node text the graph has queued and releases it, until the
// queue is empty or `stop` says so. `progress` gets (texts done, texts done +
// texts still queued in the last look).
Status DrainGraphTexts(Graph& graph, Index& index, const std::function<bool()>& stop,
                       const ProgressFn& progress = nullptr);

// The nodes `nodes` selects in the view `request` names, made the request's
// documents (keyed by node id), with a reader of their texts for snippets.
Status AddNodeDocuments(Graph& graph, const NodeSearch& nodes, SearchRequest* request);

}  // namespace vexfs::db

#endif  // VEXFS_DB_GRAPH_SEARCH_H_
