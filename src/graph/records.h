// The graph's records: their keys and the bytes of their values, in the working
// tables and in the leaves of a snapshot's hash tree alike (docs/graph.md gives
// the grammar). Every decoder here reads stored bytes, so it checks each length
// and value before use and answers a bad record with kCorruption, never a crash.
//
// A record key begins with the 16-byte id of the node it belongs to, so a node
// and its edges sit together, in one leaf of a snapshot's tree:
//   node      id 'N'
//   out-edge  from 'O' kind 0x00 to edge_id    (value: the edge)
//   in-edge   to 'I' kind 0x00 from edge_id    (value: empty; the out-edge holds it)
#ifndef VEXFS_GRAPH_RECORDS_H_
#define VEXFS_GRAPH_RECORDS_H_

#include <string>
#include <string_view>

#include "vexfs/graph.h"
#include "vexfs/status.h"

namespace vexfs::graph {

enum class RecordType : char { kNode = 'N', kOutEdge = 'O', kInEdge = 'I' };

struct RecordKey {
  RecordType type = RecordType::kNode;
  GraphId owner{};  // the node; for edges, the end the key is filed under
  std::string kind{};  // edges only
  GraphId other{};     // edges only: the far end
  GraphId edge{};      // edges only
};

std::string NodeKey(const GraphId& id);
std::string OutEdgeKey(const GraphEdge& edge);
std::string InEdgeKey(const GraphEdge& edge);
// Every record of node `id`; its out- or in-edges (of `kind` if not empty, and
// to or from `other` if not zero).
std::string NodePrefix(const GraphId& id);
std::string EdgePrefix(const GraphId& id, RecordType type, std::string_view kind = "",
                       const GraphId& other = {});
// kCorruption unless `key` is a well-formed record key.
Status ParseRecordKey(std::string_view key, RecordKey* out);

// Values. A node's id and an edge's kind and ends are in their keys.
std::string EncodeNode(const GraphNode& node);
Status DecodeNode(const GraphId& id, std::string_view value, GraphNode* out);
std::string EncodeEdge(const GraphEdge& edge);
Status DecodeEdge(const RecordKey& key, std::string_view value, GraphEdge* out);

// True for 1-64 bytes of [a-z0-9_].
bool IsValidKind(std::string_view kind);

}  // namespace vexfs::graph

#endif  // VEXFS_GRAPH_RECORDS_H_
