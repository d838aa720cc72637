// From differing records to a graph diff (graph_diff.h).
#include "graph/graph_diff.h"

#include <algorithm>

#include "graph/queries.h"
#include "graph/records.h"

namespace vexfs::graph {
namespace {

using Kind = GraphChange::Kind;

bool ContentDiffers(const GraphNode& a, const GraphNode& b) {
  return a.text != b.text || a.properties != b.properties || a.thread != b.thread ||
         a.source != b.source || a.span != b.span || a.times.valid_from != b.times.valid_from;
}

// The kinds of change between two versions of an item's times.
template <typename T>
std::vector<Kind> TimeChanges(const T& before, const T& after) {
  std::vector<Kind> kinds;
  if (before.times.retired_at != after.times.retired_at) kinds.push_back(Kind::kRetired);
  if (before.times.valid_to != after.times.valid_to) kinds.push_back(Kind::kInvalidated);
  return kinds;
}

}  // namespace

Status GraphDiffBuilder::Add(const std::string& key, const std::optional<std::string>& older,
                             const std::optional<std::string>& newer) {
  RecordKey parsed;
  VEXFS_RETURN_IF_ERROR(ParseRecordKey(key, &parsed));
  switch (parsed.type) {
    case RecordType::kNode: return AddNode(parsed.owner, older, newer);
    case RecordType::kOutEdge: return AddEdge(key, older, newer);
    case RecordType::kInEdge: return Status::Ok();  // the out-edge reports it
  }
  return Status::Ok();
}

Status GraphDiffBuilder::AddNode(const GraphId& id, const std::optional<std::string>& older,
                                 const std::optional<std::string>& newer) {
  std::optional<GraphNode> a, b;
  if (older) VEXFS_RETURN_IF_ERROR(DecodeNode(id, *older, &a.emplace()));
  if (newer) VEXFS_RETURN_IF_ERROR(DecodeNode(id, *newer, &b.emplace()));
  auto& out = node_changes_.changes;
  if (!a || !b) {
    out.push_back(GraphChange{.kind = b ? Kind::kAdded : Kind::kRemoved, .node = b ? b : a});
    return Status::Ok();
  }
  std::vector<Kind> kinds = TimeChanges(*a, *b);
  if (a->action != b->action || a->result != b->result) kinds.push_back(Kind::kAction);
  // Anything else that differs (record time, key) is a modification too: a
  // diff reports every record that differs.
  if (ContentDiffers(*a, *b) || (kinds.empty() && !(*a == *b))) kinds.push_back(Kind::kModified);
  for (Kind kind : kinds) out.push_back(GraphChange{.kind = kind, .node = b, .before = a});
  return Status::Ok();
}

Status GraphDiffBuilder::AddEdge(const std::string& key, const std::optional<std::string>& older,
                                 const std::optional<std::string>& newer) {
  RecordKey parsed;
  VEXFS_RETURN_IF_ERROR(ParseRecordKey(key, &parsed));
  std::optional<GraphEdge> a, b;
  if (older) VEXFS_RETURN_IF_ERROR(DecodeEdge(parsed, *older, &a.emplace()));
  if (newer) VEXFS_RETURN_IF_ERROR(DecodeEdge(parsed, *newer, &b.emplace()));
  auto& out = edge_changes_.changes;
  if (!a || !b) {
    out.push_back(GraphChange{.kind = b ? Kind::kAdded : Kind::kRemoved, .edge = b ? b : a});
  } else {
    std::vector<Kind> kinds = TimeChanges(*a, *b);
    if (a->properties != b->properties || a->times.valid_from != b->times.valid_from ||
        (kinds.empty() && !(*a == *b))) {
      kinds.push_back(Kind::kModified);
    }
    for (Kind kind : kinds) out.push_back(GraphChange{.kind = kind, .edge = b, .edge_before = a});
  }
  if (!b || a || b->kind != edge_kind::kSupersedes) return Status::Ok();
  // A new supersedes edge: say which fact it ended, as the newer graph has it.
  VEXFS_ASSIGN_OR_RETURN(std::optional<GraphNode> superseded, ReadNode(newer_, b->to));
  out.push_back(GraphChange{.kind = Kind::kSuperseded, .node = superseded, .edge = b, .by = b->from});
  return Status::Ok();
}

GraphDiff GraphDiffBuilder::Finish() {
  auto id_of = [](const GraphChange& c) { return c.node ? c.node->id : c.edge->id; };
  auto by_id = [&](const GraphChange& x, const GraphChange& y) { return id_of(x) < id_of(y); };
  std::stable_sort(node_changes_.changes.begin(), node_changes_.changes.end(), by_id);
  auto edge_id = [](const GraphChange& c) { return c.edge->id; };
  std::stable_sort(edge_changes_.changes.begin(), edge_changes_.changes.end(),
                   [&](const GraphChange& x, const GraphChange& y) { return edge_id(x) < edge_id(y); });
  GraphDiff out = std::move(node_changes_);
  for (GraphChange& c : edge_changes_.changes) out.changes.push_back(std::move(c));
  return out;
}

}  // namespace vexfs::graph
