// The working graph's records, indexes and dirty set (working_graph.h).
#include "graph/working_graph.h"

#include "common/sha256.h"

namespace vexfs::graph {
namespace {

constexpr char kKindIndex = 'k';
constexpr char kThreadIndex = 't';
constexpr char kEdgeIndex = 'x';

std::string IndexKey(char index, std::string_view name, const GraphId& id) {
  std::string key(1, index);
  key.append(name);
  key.push_back('\0');
  key.append(id.AsBytes());
  return key;
}

std::string IndexPrefix(char index, std::string_view name) {
  std::string key(1, index);
  key.append(name);
  key.push_back('\0');
  return key;
}

std::string EdgeIndexKey(const GraphId& edge) {
  std::string key(1, kEdgeIndex);
  key.append(edge.AsBytes());
  return key;
}

}  // namespace

std::string PendingTextKey(std::string_view text) { return std::string(Sha256Of(text).AsBytes()); }

Result<GraphTables> RegisterGraphTables(Store* store) {
  VEXFS_ASSIGN_OR_RETURN(auto tables, RegisterTables(store, {{"graph_records", TableScope::kPerBranch},
                                                             {"graph_index", TableScope::kPerBranch},
                                                             {"graph_dirty", TableScope::kPerBranch},
                                                             {"graph_base", TableScope::kPerBranch},
                                                             {"graph_texts", TableScope::kGlobal}}));
  return GraphTables{tables[0], tables[1], tables[2], tables[3], tables[4]};
}

WorkingGraph::WorkingGraph(StoreTxn& txn, const GraphTables& tables)
    : txn_(txn), tables_(tables), prefix_(BranchKeyPrefix(txn.branch_id())) {}

Result<std::optional<std::string>> WorkingGraph::GetRecord(std::string_view key) const {
  VEXFS_ASSIGN_OR_RETURN(auto value, txn_.Get(tables_.records, prefix_ + std::string(key)));
  if (!value) return std::optional<std::string>();
  return std::optional<std::string>(std::string(*value));
}

Result<std::vector<Record>> WorkingGraph::ScanRecords(std::string_view prefix) const {
  VEXFS_ASSIGN_OR_RETURN(auto rows, txn_.Scan(tables_.records, prefix_ + std::string(prefix)));
  for (auto& row : rows) row.first.erase(0, prefix_.size());
  return rows;
}

Status WorkingGraph::VisitRecords(
    std::string_view prefix,
    const std::function<Result<bool>(std::string_view, std::string_view)>& visit) const {
  std::string full = prefix_ + std::string(prefix);
  TableCursor cursor;
  VEXFS_RETURN_IF_ERROR(cursor.Open(txn_, tables_.records));
  VEXFS_ASSIGN_OR_RETURN(bool more, cursor.Seek(full));
  while (more && cursor.key().starts_with(full)) {
    VEXFS_ASSIGN_OR_RETURN(bool go_on, visit(cursor.key().substr(prefix_.size()), cursor.value()));
    if (!go_on) break;
    VEXFS_ASSIGN_OR_RETURN(more, cursor.Next());
  }
  return Status::Ok();
}

Result<std::optional<GraphNode>> WorkingGraph::GetNode(const GraphId& id) const {
  VEXFS_ASSIGN_OR_RETURN(auto value, GetRecord(NodeKey(id)));
  if (!value) return std::optional<GraphNode>();
  GraphNode node;
  VEXFS_RETURN_IF_ERROR(DecodeNode(id, *value, &node));
  return std::optional<GraphNode>(std::move(node));
}

Result<std::optional<GraphEdge>> WorkingGraph::GetEdge(const GraphId& id) const {
  VEXFS_ASSIGN_OR_RETURN(auto where, txn_.Get(tables_.index, prefix_ + EdgeIndexKey(id)));
  if (!where) return std::optional<GraphEdge>();
  std::string key(*where);
  VEXFS_ASSIGN_OR_RETURN(auto value, GetRecord(key));
  if (!value) return Status::Corruption("graph: the edge index names an edge that is not stored");
  RecordKey parsed;
  VEXFS_RETURN_IF_ERROR(ParseRecordKey(key, &parsed));
  GraphEdge edge;
  VEXFS_RETURN_IF_ERROR(DecodeEdge(parsed, *value, &edge));
  return std::optional<GraphEdge>(std::move(edge));
}

Result<std::vector<GraphEdge>> WorkingGraph::EdgesBetween(const GraphId& from,
                                                          std::string_view kind,
                                                          const GraphId& to) const {
  VEXFS_ASSIGN_OR_RETURN(auto rows, ScanRecords(EdgePrefix(from, RecordType::kOutEdge, kind, to)));
  std::vector<GraphEdge> out;
  for (const auto& [key, value] : rows) {
    RecordKey parsed;
    VEXFS_RETURN_IF_ERROR(ParseRecordKey(key, &parsed));
    GraphEdge edge;
    VEXFS_RETURN_IF_ERROR(DecodeEdge(parsed, value, &edge));
    if (edge.times.retired_at == kGraphForever) out.push_back(std::move(edge));
  }
  return out;
}

Result<std::vector<GraphId>> WorkingGraph::IdsUnder(std::string_view index_prefix) const {
  VEXFS_ASSIGN_OR_RETURN(auto rows, txn_.Scan(tables_.index, prefix_ + std::string(index_prefix)));
  std::vector<GraphId> ids;
  ids.reserve(rows.size());
  for (const auto& [key, value] : rows) {
    if (key.size() < 16) return Status::Corruption("graph: an index key is too short");
    ids.push_back(GraphId::FromBytes(std::string_view(key).substr(key.size() - 16)));
  }
  return ids;
}

Result<std::vector<GraphId>> WorkingGraph::IdsOfKind(std::string_view kind) const {
  return IdsUnder(IndexPrefix(kKindIndex, kind));
}

Result<std::vector<GraphId>> WorkingGraph::IdsInThread(std::string_view thread) const {
  return IdsUnder(IndexPrefix(kThreadIndex, thread));
}

Result<bool> WorkingGraph::PutRecord(std::string_view key, std::string_view value) {
  std::string full = prefix_ + std::string(key);
  VEXFS_ASSIGN_OR_RETURN(auto old, txn_.Get(tables_.records, full));
  if (old && *old == value) return false;
  VEXFS_RETURN_IF_ERROR(txn_.Put(tables_.records, full, value));
  VEXFS_RETURN_IF_ERROR(txn_.PutIfAbsent(tables_.dirty, full, "").status());
  return true;
}

Status WorkingGraph::IndexNode(const GraphNode& node, const std::optional<GraphNode>& old) {
  if (old && old->thread != node.thread && !old->thread.empty()) {
    VEXFS_RETURN_IF_ERROR(
        txn_.Delete(tables_.index, prefix_ + IndexKey(kThreadIndex, old->thread, node.id)).status());
  }
  if (old && old->kind != node.kind) {
    VEXFS_RETURN_IF_ERROR(
        txn_.Delete(tables_.index, prefix_ + IndexKey(kKindIndex, old->kind, node.id)).status());
  }
  VEXFS_RETURN_IF_ERROR(txn_.Put(tables_.index, prefix_ + IndexKey(kKindIndex, node.kind, node.id), ""));
  if (node.thread.empty()) return Status::Ok();
  return txn_.Put(tables_.index, prefix_ + IndexKey(kThreadIndex, node.thread, node.id), "");
}

Result<bool> WorkingGraph::PutNode(const GraphNode& node, const std::optional<GraphNode>& old) {
  VEXFS_ASSIGN_OR_RETURN(bool changed, PutRecord(NodeKey(node.id), EncodeNode(node)));
  if (!changed) return false;
  VEXFS_RETURN_IF_ERROR(IndexNode(node, old));
  // In the write's own transaction, so no crash loses the text's indexing.
  if (!node.text.empty() && (!old || old->text != node.text)) {
    VEXFS_RETURN_IF_ERROR(txn_.Put(tables_.texts, PendingTextKey(node.text), node.text));
  }
  return true;
}

Result<bool> WorkingGraph::PutEdge(const GraphEdge& edge, bool is_new) {
  std::string out_key = OutEdgeKey(edge);
  VEXFS_ASSIGN_OR_RETURN(bool changed, PutRecord(out_key, EncodeEdge(edge)));
  if (!is_new) return changed;
  VEXFS_RETURN_IF_ERROR(PutRecord(InEdgeKey(edge), "").status());
  VEXFS_RETURN_IF_ERROR(txn_.Put(tables_.index, prefix_ + EdgeIndexKey(edge.id), out_key));
  return true;
}

Status WorkingGraph::LoadRecord(std::string_view key, std::string_view value) {
  RecordKey parsed;
  VEXFS_RETURN_IF_ERROR(ParseRecordKey(key, &parsed));
  VEXFS_RETURN_IF_ERROR(txn_.Put(tables_.records, prefix_ + std::string(key), value));
  if (parsed.type == RecordType::kOutEdge) {
    return txn_.Put(tables_.index, prefix_ + EdgeIndexKey(parsed.edge), key);
  }
  if (parsed.type != RecordType::kNode) return Status::Ok();
  GraphNode node;
  VEXFS_RETURN_IF_ERROR(DecodeNode(parsed.owner, value, &node));
  return IndexNode(node, std::nullopt);
}

Result<std::vector<std::string>> WorkingGraph::DirtyKeys() const {
  VEXFS_ASSIGN_OR_RETURN(auto rows, txn_.Scan(tables_.dirty, prefix_));
  std::vector<std::string> keys;
  keys.reserve(rows.size());
  for (auto& row : rows) keys.push_back(row.first.substr(prefix_.size()));
  return keys;
}

Status WorkingGraph::ClearDirty() { return txn_.DeletePrefix(tables_.dirty, prefix_); }

Result<std::optional<ObjectId>> WorkingGraph::Base() const {
  VEXFS_ASSIGN_OR_RETURN(auto value, txn_.Get(tables_.base, prefix_));
  if (!value) return std::optional<ObjectId>();
  if (value->size() != 32) return Status::Corruption("graph: a branch's base root is malformed");
  return std::optional<ObjectId>(ObjectId::FromBytes(*value));
}

Status WorkingGraph::SetBase(const std::optional<ObjectId>& root) {
  if (!root) return txn_.Delete(tables_.base, prefix_).status();
  return txn_.Put(tables_.base, prefix_, root->AsBytes());
}

}  // namespace vexfs::graph
