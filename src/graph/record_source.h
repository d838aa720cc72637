// Where a read finds the graph's records: the working graph of a branch (its
// tables, with indexes), or a snapshot's hash tree read in place. Queries are
// written once against this interface and read both alike.
#ifndef VEXFS_GRAPH_RECORD_SOURCE_H_
#define VEXFS_GRAPH_RECORD_SOURCE_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/trie/trie_read.h"
#include "graph/working_graph.h"

namespace vexfs::graph {

class RecordSource {
 public:
  virtual ~RecordSource() = default;
  virtual Result<std::optional<std::string>> Get(std::string_view key) const = 0;
  // Records under `prefix` in key order ("" = all); the visitor may stop.
  virtual Status Scan(std::string_view prefix, const RecordVisitor& visit) const = 0;
  // Node ids of a kind or a thread where an index has them; nullopt: scan.
  virtual Result<std::optional<std::vector<GraphId>>> IdsOfKind(std::string_view kind) const;
  virtual Result<std::optional<std::vector<GraphId>>> IdsInThread(std::string_view thread) const;
  // The out-edge key of edge `id`, nullopt if there is none.
  virtual Result<std::optional<std::string>> EdgeKey(const GraphId& id) const;
};

class WorkingSource : public RecordSource {
 public:
  explicit WorkingSource(const WorkingGraph& graph) : graph_(graph) {}
  Result<std::optional<std::string>> Get(std::string_view key) const override;
  Status Scan(std::string_view prefix, const RecordVisitor& visit) const override;
  Result<std::optional<std::vector<GraphId>>> IdsOfKind(std::string_view kind) const override;
  Result<std::optional<std::vector<GraphId>>> IdsInThread(std::string_view thread) const override;
  Result<std::optional<std::string>> EdgeKey(const GraphId& id) const override;

 private:
  const WorkingGraph& graph_;
};

class SnapshotSource : public RecordSource {
 public:
  // `txn` outlives this; `top` is the snapshot's tree (count 0: an empty graph).
  SnapshotSource(const StoreTxn& txn, const TrieRef& top) : reader_(txn), top_(top) {}
  Result<std::optional<std::string>> Get(std::string_view key) const override;
  Status Scan(std::string_view prefix, const RecordVisitor& visit) const override;

 private:
  TrieReader reader_;
  TrieRef top_;
};

}  // namespace vexfs::graph

#endif  // VEXFS_GRAPH_RECORD_SOURCE_H_
