// The rules of graph writes (batch_writer.h).
#include "graph/batch_writer.h"

#include <set>
#include <vector>

#include "graph/validation.h"

namespace vexfs::graph {
namespace {

const char* OpName(GraphBatch::Item::Op op) {
  switch (op) {
    case GraphBatch::Item::Op::kAddNode: return "add";
    case GraphBatch::Item::Op::kLink: return "link";
    case GraphBatch::Item::Op::kInvalidate: return "invalidate";
    case GraphBatch::Item::Op::kRetire: return "retire";
    case GraphBatch::Item::Op::kSetAction: return "set action";
  }
  return "?";
}

std::string ItemName(size_t index, const GraphBatch::Item& item) {
  std::string name = "item " + std::to_string(index + 1) + " (" + OpName(item.op);
  if (item.op == GraphBatch::Item::Op::kAddNode) name += " " + item.node.kind;
  if (item.op == GraphBatch::Item::Op::kLink) name += " " + item.edge.kind;
  return name + ")";
}

bool ActionMayMove(ActionState from, ActionState to) {
  switch (from) {
    case ActionState::kPlanned: return to == ActionState::kStarted || to == ActionState::kDone || to == ActionState::kFailed;
    case ActionState::kStarted: return to != ActionState::kNone;
    case ActionState::kFailed: return to == ActionState::kPlanned || to == ActionState::kStarted;
    case ActionState::kDone:
    case ActionState::kNone: return false;
  }
  return false;
}

}  // namespace

Status BatchWriter::Count(Result<bool> changed) {
  if (!changed.ok()) return changed.status();
  if (*changed) ++result_.records_changed;
  return Status::Ok();
}

Result<GraphWriteResult> BatchWriter::Apply(const GraphBatch& batch) {
  result_ = GraphWriteResult();
  const auto& items = batch.items();
  for (size_t i = 0; i < items.size(); ++i) {
    const Item& item = items[i];
    std::string name = ItemName(i, item);
    switch (item.op) {
      case Item::Op::kAddNode: VEXFS_RETURN_IF_ERROR(AddNode(item, name)); break;
      case Item::Op::kLink: VEXFS_RETURN_IF_ERROR(Link(item, name)); break;
      case Item::Op::kInvalidate: VEXFS_RETURN_IF_ERROR(Invalidate(item, name)); break;
      case Item::Op::kRetire: VEXFS_RETURN_IF_ERROR(Retire(item, name)); break;
      case Item::Op::kSetAction: VEXFS_RETURN_IF_ERROR(SetAction(item, name)); break;
    }
  }
  return std::move(result_);
}

// An upsert changes what the item gives: the text (an entity written by name
// keeps its first spelling), properties, a thread or source, times and span
// given; what it leaves out stays, so writing an item again changes nothing.
Result<GraphNode> BatchWriter::UpdatedNode(const Item& item, GraphNode node,
                                           const std::string& props, const std::string& name) const {
  const NodeSpec& spec = item.node;
  if (node.kind != spec.kind) {
    return Status::InvalidArgument(name + ": node " + node.id.ToHex() + " is a " + node.kind +
                                   ", not a " + spec.kind);
  }
  if (node.times.retired_at != kGraphForever) {
    return Status::InvalidArgument(name + ": node " + node.id.ToHex() + " was retired");
  }
  bool by_name = spec.kind == node_kind::kEntity && spec.key.empty();
  if (!by_name) node.text = spec.text;
  if (props != "{}" || !by_name) node.properties = props;
  if (!spec.thread.empty()) node.thread = spec.thread;
  if (!spec.source.empty()) node.source = spec.source;
  if (spec.valid_from != 0) node.times.valid_from = spec.valid_from;
  if (spec.valid_to != kGraphForever) node.times.valid_to = spec.valid_to;
  if (spec.span) node.span = spec.span;
  VEXFS_RETURN_IF_ERROR(CheckValidTime(node.times.valid_from, node.times.valid_to, name));
  return node;
}

Status BatchWriter::AddNode(const Item& item, const std::string& name) {
  const NodeSpec& spec = item.node;
  VEXFS_RETURN_IF_ERROR(CheckNodeSpec(spec, name));
  VEXFS_ASSIGN_OR_RETURN(std::string props, CanonicalProperties(spec.properties, name));
  VEXFS_ASSIGN_OR_RETURN(std::optional<GraphNode> old, graph_.GetNode(item.id));
  result_.nodes.push_back(item.id);
  if (old) {
    VEXFS_ASSIGN_OR_RETURN(GraphNode updated, UpdatedNode(item, *old, props, name));
    if (spec.must_match && !(updated == *old)) {
      return Status::InvalidArgument(name + ": key '" + spec.key + "' already names a different " + old->kind);
    }
    return Count(graph_.PutNode(updated, old));
  }
  GraphNode node;
  node.id = item.id;
  node.kind = spec.kind;
  node.text = spec.text;
  node.properties = props;
  node.thread = spec.thread;
  node.key = spec.key;
  node.source = spec.source;
  node.times.valid_from = spec.valid_from != 0 ? spec.valid_from : now_;
  node.times.valid_to = spec.valid_to;
  node.times.recorded_at = now_;
  node.span = spec.span;
  if (spec.kind == node_kind::kPendingAction) node.action = ActionState::kPlanned;
  VEXFS_RETURN_IF_ERROR(CheckValidTime(node.times.valid_from, node.times.valid_to, name));
  return Count(graph_.PutNode(node, std::nullopt));
}

Result<GraphNode> BatchWriter::LiveNode(const GraphId& id, const std::string& name) const {
  VEXFS_ASSIGN_OR_RETURN(std::optional<GraphNode> node, graph_.GetNode(id));
  if (!node) return Status::NotFound(name + ": node " + id.ToHex() + " does not exist");
  if (node->times.retired_at != kGraphForever) {
    return Status::InvalidArgument(name + ": node " + id.ToHex() + " was retired");
  }
  return std::move(*node);
}

// Whether `target` is reachable from `start` along supersedes edges.
Result<bool> BatchWriter::SupersedesReach(const GraphId& start, const GraphId& target) const {
  std::vector<GraphId> stack{start};
  std::set<GraphId> seen{start};
  while (!stack.empty()) {
    GraphId at = stack.back();
    stack.pop_back();
    if (at == target) return true;
    VEXFS_ASSIGN_OR_RETURN(auto edges, graph_.EdgesBetween(at, edge_kind::kSupersedes, GraphId()));
    for (const GraphEdge& e : edges) {
      if (seen.insert(e.to).second) stack.push_back(e.to);
    }
  }
  return false;
}

// A newer fact supersedes an older: the older stops being valid where the newer
// starts (it stays readable as of any earlier time).
Status BatchWriter::EndOlderFact(const GraphNode& newer, const GraphId& older_id,
                                 const std::string& name) {
  VEXFS_ASSIGN_OR_RETURN(GraphNode older, LiveNode(older_id, name));
  if (older.kind != newer.kind) {
    return Status::InvalidArgument(name + ": a " + newer.kind + " cannot supersede a " + older.kind);
  }
  if (newer.times.valid_from <= older.times.valid_from) {
    return Status::InvalidArgument(name + ": node " + newer.id.ToHex() +
                                   " cannot supersede node " + older_id.ToHex() +
                                   ", which became valid no earlier");
  }
  if (older.times.valid_to <= newer.times.valid_from) return Status::Ok();
  GraphNode before = older;
  older.times.valid_to = newer.times.valid_from;
  return Count(graph_.PutNode(older, before));
}

Status BatchWriter::Link(const Item& item, const std::string& name) {
  const EdgeSpec& spec = item.edge;
  VEXFS_RETURN_IF_ERROR(CheckEdgeSpec(spec, name));
  VEXFS_ASSIGN_OR_RETURN(std::string props, CanonicalProperties(spec.properties, name));
  VEXFS_ASSIGN_OR_RETURN(GraphNode from, LiveNode(spec.from, name));
  VEXFS_RETURN_IF_ERROR(LiveNode(spec.to, name).status());
  bool supersedes = spec.kind == edge_kind::kSupersedes;
  if (supersedes) {
    VEXFS_ASSIGN_OR_RETURN(bool cycle, SupersedesReach(spec.to, spec.from));
    if (cycle) return Status::InvalidArgument(name + ": it would make a cycle of supersedes edges");
  }
  VEXFS_ASSIGN_OR_RETURN(auto existing, graph_.EdgesBetween(spec.from, spec.kind, spec.to));
  if (!existing.empty()) {
    GraphEdge edge = existing.front();
    result_.edges.push_back(edge.id);
    GraphEdge updated = edge;
    if (props != "{}") updated.properties = props;
    if (spec.valid_from != 0) updated.times.valid_from = spec.valid_from;
    if (spec.valid_to != kGraphForever) updated.times.valid_to = spec.valid_to;
    VEXFS_RETURN_IF_ERROR(CheckValidTime(updated.times.valid_from, updated.times.valid_to, name));
    return Count(graph_.PutEdge(updated, false));
  }
  GraphEdge edge{.id = item.id, .kind = spec.kind, .from = spec.from, .to = spec.to, .properties = props};
  edge.times.valid_from = spec.valid_from != 0 ? spec.valid_from : now_;
  edge.times.valid_to = spec.valid_to;
  edge.times.recorded_at = now_;
  VEXFS_RETURN_IF_ERROR(CheckValidTime(edge.times.valid_from, edge.times.valid_to, name));
  result_.edges.push_back(edge.id);
  VEXFS_RETURN_IF_ERROR(Count(graph_.PutEdge(edge, true)));
  return supersedes ? EndOlderFact(from, spec.to, name) : Status::Ok();
}

Status BatchWriter::Invalidate(const Item& item, const std::string& name) {
  TimeNs at = item.at != 0 ? item.at : now_;
  VEXFS_ASSIGN_OR_RETURN(std::optional<GraphNode> node, graph_.GetNode(item.id));
  if (node) {
    if (node->times.valid_to <= at) return Status::Ok();
    VEXFS_RETURN_IF_ERROR(CheckValidTime(node->times.valid_from, at, name));
    GraphNode before = *node;
    node->times.valid_to = at;
    return Count(graph_.PutNode(*node, before));
  }
  VEXFS_ASSIGN_OR_RETURN(std::optional<GraphEdge> edge, graph_.GetEdge(item.id));
  if (!edge) return Status::NotFound(name + ": there is no node or edge " + item.id.ToHex());
  if (edge->times.valid_to <= at) return Status::Ok();
  VEXFS_RETURN_IF_ERROR(CheckValidTime(edge->times.valid_from, at, name));
  edge->times.valid_to = at;
  return Count(graph_.PutEdge(*edge, false));
}

Status BatchWriter::Retire(const Item& item, const std::string& name) {
  VEXFS_ASSIGN_OR_RETURN(std::optional<GraphNode> node, graph_.GetNode(item.id));
  if (node) {
    if (node->times.retired_at != kGraphForever) return Status::Ok();
    GraphNode before = *node;
    node->times.retired_at = now_;
    return Count(graph_.PutNode(*node, before));
  }
  VEXFS_ASSIGN_OR_RETURN(std::optional<GraphEdge> edge, graph_.GetEdge(item.id));
  if (!edge) return Status::NotFound(name + ": there is no node or edge " + item.id.ToHex());
  if (edge->times.retired_at != kGraphForever) return Status::Ok();
  edge->times.retired_at = now_;
  return Count(graph_.PutEdge(*edge, false));
}

Status BatchWriter::SetAction(const Item& item, const std::string& name) {
  VEXFS_ASSIGN_OR_RETURN(GraphNode node, LiveNode(item.id, name));
  if (node.kind != node_kind::kPendingAction) {
    return Status::InvalidArgument(name + ": node " + item.id.ToHex() + " is a " + node.kind +
                                   ", not a pending action");
  }
  if (!item.result.IsZero()) VEXFS_RETURN_IF_ERROR(LiveNode(item.result, name).status());
  bool same_result = item.result.IsZero() || item.result == node.result;
  if (node.action == item.action && same_result) return Status::Ok();
  if (node.action != item.action && !ActionMayMove(node.action, item.action)) {
    return Status::InvalidArgument(name + ": action '" + node.key + "' is " +
                                   ActionStateName(node.action) + " and cannot become " +
                                   ActionStateName(item.action) +
                                   (node.action == ActionState::kDone ? ": it must not run again" : ""));
  }
  if (node.action == ActionState::kDone) {
    return Status::InvalidArgument(name + ": action '" + node.key + "' is done: its result is final");
  }
  GraphNode before = node;
  node.action = item.action;
  if (!item.result.IsZero()) node.result = item.result;
  return Count(graph_.PutNode(node, before));
}

}  // namespace vexfs::graph
