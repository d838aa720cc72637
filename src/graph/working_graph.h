// The working graph of one branch: its records in the store's tables, read and
// written inside one transaction bound to that branch. Every record it writes
// is marked dirty, so the next snapshot rewrites only what changed
// (graph_extension.h); its indexes (nodes by kind and by thread, edges by id)
// are derived from the records and rebuilt whenever the records are replaced.
//
// Tables (all per branch, so the store drops them with a replaced working tree
// and copies them to a new branch):
//   graph_records  record key -> value             (records.h)
//   graph_index    'k' kind 0x00 id | 't' thread 0x00 id -> ""; 'x' edge id -> out-edge key
//   graph_dirty    record key -> ""                (changed since the base)
//   graph_base     "" -> the snapshot root the dirty records are relative to
// and one table shared by every branch:
//   graph_texts    SHA-256 of a node text -> the text: texts written since the
//                  search index last took them (Graph::PendingTexts); and
//                  "m" -> "1" once the texts of an older store were queued
#ifndef VEXFS_GRAPH_WORKING_GRAPH_H_
#define VEXFS_GRAPH_WORKING_GRAPH_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/records.h"
#include "graph/trie/trie_objects.h"
#include "vexfs/extension.h"
#include "vexfs/graph.h"

namespace vexfs::graph {

struct GraphTables {
  Table records;
  Table index;
  Table dirty;
  Table base;
  Table texts;
};

// The graph_texts key of a node text: its SHA-256.
std::string PendingTextKey(std::string_view text);
// The graph_texts key (one byte, so never a text's hash) whose presence says
// every text written before texts were queued has been queued too
// (Graph::Attach does it once).
inline constexpr std::string_view kTextsQueuedMarker = "m";

// Registers the tables (RegisterTables: idempotent).
Result<GraphTables> RegisterGraphTables(Store* store);

class WorkingGraph {
 public:
  // `txn` is bound to the branch (BeginOnBranch or an edit's) and outlives this.
  WorkingGraph(StoreTxn& txn, const GraphTables& tables);

  Result<std::optional<GraphNode>> GetNode(const GraphId& id) const;
  Result<std::optional<GraphEdge>> GetEdge(const GraphId& id) const;
  // The live edges (not retired) from `from` of `kind` to `to`.
  Result<std::vector<GraphEdge>> EdgesBetween(const GraphId& from, std::string_view kind,
                                              const GraphId& to) const;
  // Ids from the kind or thread index.
  Result<std::vector<GraphId>> IdsOfKind(std::string_view kind) const;
  Result<std::vector<GraphId>> IdsInThread(std::string_view thread) const;

  // Writes a node (and its index entries); `old` is its record before, if any.
  // False if nothing changed.
  Result<bool> PutNode(const GraphNode& node, const std::optional<GraphNode>& old);
  Result<bool> PutEdge(const GraphEdge& edge, bool is_new);
  // A record written as it is (restore): the indexes it implies too, no dirt.
  Status LoadRecord(std::string_view key, std::string_view value);

  // Raw access for snapshots and queries: record keys here exclude the branch prefix.
  Result<std::optional<std::string>> GetRecord(std::string_view key) const;
  Result<std::vector<Record>> ScanRecords(std::string_view prefix) const;
  // The same without copying: `visit` sees each key (branch prefix removed) and
  // value in order while it returns true; the views last until it returns.
  Status VisitRecords(std::string_view prefix,
                      const std::function<Result<bool>(std::string_view, std::string_view)>& visit) const;
  Result<std::vector<std::string>> DirtyKeys() const;
  Status ClearDirty();
  Result<std::optional<ObjectId>> Base() const;
  Status SetBase(const std::optional<ObjectId>& root);

 private:
  Status IndexNode(const GraphNode& node, const std::optional<GraphNode>& old);
  Result<bool> PutRecord(std::string_view key, std::string_view value);
  Result<std::vector<GraphId>> IdsUnder(std::string_view index_prefix) const;

  StoreTxn& txn_;
  const GraphTables& tables_;
  std::string prefix_;  // the branch's key prefix
};

}  // namespace vexfs::graph

#endif  // VEXFS_GRAPH_WORKING_GRAPH_H_
