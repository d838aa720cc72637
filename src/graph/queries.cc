// The graph's reads (queries.h).
#include "graph/queries.h"

#include <algorithm>
#include <set>

#include "graph/records.h"

namespace vexfs::graph {
namespace {

bool Matches(const GraphNode& node, const GraphQuery& q) {
  return (q.kind.empty() || node.kind == q.kind) && (q.thread.empty() || node.thread == q.thread) &&
         (q.action == ActionState::kNone || node.action == q.action);
}

bool Earlier(const GraphNode& a, const GraphNode& b) {
  if (a.times.valid_from != b.times.valid_from) return a.times.valid_from < b.times.valid_from;
  if (a.times.recorded_at != b.times.recorded_at) return a.times.recorded_at < b.times.recorded_at;
  return a.id < b.id;
}

// Candidate ids from an index, nullopt where the source has none for the query.
Result<std::optional<std::vector<GraphId>>> IndexedIds(const RecordSource& source,
                                                       const GraphQuery& q) {
  if (!q.thread.empty()) return source.IdsInThread(q.thread);
  if (!q.kind.empty()) return source.IdsOfKind(q.kind);
  if (q.action != ActionState::kNone) return source.IdsOfKind(node_kind::kPendingAction);
  return std::optional<std::vector<GraphId>>();
}

// Walks one node's edges in one direction: each visible edge and its far end.
class NeighborWalk {
 public:
  NeighborWalk(const RecordSource& source, const NeighborQuery& q, TimeNs now)
      : source_(source), q_(q), now_(now) {}

  Result<Neighborhood> Run() {
    VEXFS_ASSIGN_OR_RETURN(std::optional<GraphNode> start, ReadNode(source_, q_.start));
    if (!start || !Visible(start->times, q_.read, now_)) {
      return Status::NotFound("graph: node " + q_.start.ToHex() + " does not exist here");
    }
    seen_.insert(start->id);
    out_.nodes.push_back(std::move(*start));
    std::vector<GraphId> frontier{q_.start};
    for (int d = 0; d < q_.depth && !frontier.empty() && !Full(); ++d) {
      std::vector<GraphId> next;
      for (const GraphId& id : frontier) VEXFS_RETURN_IF_ERROR(Expand(id, &next));
      frontier = std::move(next);
    }
    return std::move(out_);
  }

 private:
  bool Full() const { return q_.limit != 0 && out_.nodes.size() >= q_.limit; }

  Status Expand(const GraphId& id, std::vector<GraphId>* next) {
    std::vector<std::string> kinds = q_.edge_kinds;
    if (kinds.empty()) kinds.push_back("");
    for (const std::string& kind : kinds) {
      if (q_.direction != GraphDirection::kIn) {
        VEXFS_RETURN_IF_ERROR(Follow(EdgePrefix(id, RecordType::kOutEdge, kind), next));
      }
      if (q_.direction != GraphDirection::kOut) {
        VEXFS_RETURN_IF_ERROR(Follow(EdgePrefix(id, RecordType::kInEdge, kind), next));
      }
    }
    return Status::Ok();
  }

  Status Follow(const std::string& prefix, std::vector<GraphId>* next) {
    std::vector<std::string> keys;
    VEXFS_RETURN_IF_ERROR(source_.Scan(prefix, [&](std::string_view key, std::string_view) -> Result<bool> {
      keys.emplace_back(key);
      return true;
    }));
    for (const std::string& key : keys) {
      if (Full()) break;
      VEXFS_RETURN_IF_ERROR(Visit(key, next));
    }
    return Status::Ok();
  }

  Status Visit(const std::string& key, std::vector<GraphId>* next) {
    RecordKey parsed;
    VEXFS_RETURN_IF_ERROR(ParseRecordKey(key, &parsed));
    std::string out_key = key;
    if (parsed.type == RecordType::kInEdge) {
      GraphEdge probe{.id = parsed.edge, .kind = parsed.kind, .from = parsed.other, .to = parsed.owner};
      out_key = OutEdgeKey(probe);
      VEXFS_RETURN_IF_ERROR(ParseRecordKey(out_key, &parsed));
    }
    VEXFS_ASSIGN_OR_RETURN(auto value, source_.Get(out_key));
    if (!value) return Status::Corruption("graph: an in-edge has no out-edge");
    GraphEdge edge;
    VEXFS_RETURN_IF_ERROR(DecodeEdge(parsed, *value, &edge));
    if (!Visible(edge.times, q_.read, now_)) return Status::Ok();
    bool outgoing = key == out_key;
    GraphId far = outgoing ? edge.to : edge.from;
    VEXFS_ASSIGN_OR_RETURN(std::optional<GraphNode> node, ReadNode(source_, far));
    if (!node || !Visible(node->times, q_.read, now_)) return Status::Ok();
    if (edges_seen_.insert(edge.id).second) out_.edges.push_back(std::move(edge));
    if (!seen_.insert(far).second) return Status::Ok();
    out_.nodes.push_back(std::move(*node));
    next->push_back(far);
    return Status::Ok();
  }

  const RecordSource& source_;
  const NeighborQuery& q_;
  TimeNs now_;
  Neighborhood out_;
  std::set<GraphId> seen_;
  std::set<GraphId> edges_seen_;
};

}  // namespace

bool Visible(const GraphTimes& times, const GraphReadOptions& read, TimeNs now) {
  if (!read.include_retired && times.retired_at != kGraphForever) return false;
  if (read.include_invalid) return true;
  TimeNs at = read.valid_at != 0 ? read.valid_at : now;
  return times.valid_from <= at && at < times.valid_to;
}

Result<std::optional<GraphNode>> ReadNode(const RecordSource& source, const GraphId& id) {
  VEXFS_ASSIGN_OR_RETURN(auto value, source.Get(NodeKey(id)));
  if (!value) return std::optional<GraphNode>();
  GraphNode node;
  VEXFS_RETURN_IF_ERROR(DecodeNode(id, *value, &node));
  return std::optional<GraphNode>(std::move(node));
}

Result<std::optional<GraphEdge>> ReadEdge(const RecordSource& source, const GraphId& id) {
  VEXFS_ASSIGN_OR_RETURN(auto key, source.EdgeKey(id));
  if (!key) return std::optional<GraphEdge>();
  VEXFS_ASSIGN_OR_RETURN(auto value, source.Get(*key));
  if (!value) return Status::Corruption("graph: edge " + id.ToHex() + " is indexed but not stored");
  RecordKey parsed;
  VEXFS_RETURN_IF_ERROR(ParseRecordKey(*key, &parsed));
  GraphEdge edge;
  VEXFS_RETURN_IF_ERROR(DecodeEdge(parsed, *value, &edge));
  return std::optional<GraphEdge>(std::move(edge));
}

Status VisitQueryNodes(const RecordSource& source, const GraphQuery& q, TimeNs now,
                       const NodeVisitor& visit) {
  auto offer = [&](GraphNode& node) -> bool {
    if (!Matches(node, q) || !Visible(node.times, q.read, now)) return true;
    return visit(node);
  };
  VEXFS_ASSIGN_OR_RETURN(auto ids, IndexedIds(source, q));
  if (ids) {
    for (const GraphId& id : *ids) {
      VEXFS_ASSIGN_OR_RETURN(auto node, ReadNode(source, id));
      if (!node) return Status::Corruption("graph: an index names node " + id.ToHex() + ", which is not stored");
      if (!offer(*node)) break;
    }
    return Status::Ok();
  }
  GraphNode node;  // reused: a scan of a large graph allocates little
  return source.Scan("", [&](std::string_view key, std::string_view value) -> Result<bool> {
    // Edges outnumber nodes: skip them by their type byte before parsing.
    if (key.size() > 16 && key[16] != static_cast<char>(RecordType::kNode)) return true;
    RecordKey parsed;
    VEXFS_RETURN_IF_ERROR(ParseRecordKey(key, &parsed));
    VEXFS_RETURN_IF_ERROR(DecodeNode(parsed.owner, value, &node));
    return offer(node);
  });
}

Result<std::vector<GraphNode>> QueryNodes(const RecordSource& source, const GraphQuery& q,
                                          TimeNs now) {
  std::vector<GraphNode> out;
  VEXFS_RETURN_IF_ERROR(VisitQueryNodes(source, q, now, [&](GraphNode& node) {
    out.push_back(std::move(node));
    return true;
  }));
  std::sort(out.begin(), out.end(), Earlier);
  if (q.limit != 0 && out.size() > q.limit) out.resize(q.limit);
  return out;
}

Result<Neighborhood> QueryNeighbors(const RecordSource& source, const NeighborQuery& q, TimeNs now) {
  if (q.depth < 1 || q.depth > 8) {
    return Status::InvalidArgument("graph: a neighbour depth must be 1 to 8, not " + std::to_string(q.depth));
  }
  return NeighborWalk(source, q, now).Run();
}

Result<GraphStats> CountRecords(const RecordSource& source) {
  GraphStats stats;
  VEXFS_RETURN_IF_ERROR(source.Scan("", [&](std::string_view key, std::string_view) -> Result<bool> {
    if (key.size() > 16 && key[16] == static_cast<char>(RecordType::kNode)) ++stats.nodes;
    if (key.size() > 16 && key[16] == static_cast<char>(RecordType::kOutEdge)) ++stats.edges;
    return true;
  }));
  return stats;
}

}  // namespace vexfs::graph
