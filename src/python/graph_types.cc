// Python classes over the memory graph's structs (graph_types.h).
#include "python/graph_types.h"

#include <pybind11/stl.h>

#include <optional>
#include <string>

#include "python/json_value.h"
#include "python/text.h"
#include "vexfs/graph.h"
#include "vexfs/json.h"

namespace vexfs::python {
namespace {

namespace py = pybind11;

std::optional<TimeNs> Ended(TimeNs t) {
  if (t == kGraphForever) return std::nullopt;
  return t;
}

std::optional<std::string> HexOrNone(const GraphId& id) {
  if (id.IsZero()) return std::nullopt;
  return id.ToHex();
}

py::object PropertiesOf(const std::string& text) {
  return ToPython(nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false));
}

// valid_from_ns, valid_to_ns, recorded_at_ns, retired_at_ns of a node or edge.
template <typename T>
void AddTimes(py::class_<T>& cls) {
  cls.def_property_readonly("valid_from_ns", [](const T& v) { return v.times.valid_from; },
                            "When it became true.")
      .def_property_readonly("valid_to_ns", [](const T& v) { return Ended(v.times.valid_to); },
                             "When it stopped being true, or None.")
      .def_property_readonly("recorded_at_ns", [](const T& v) { return v.times.recorded_at; },
                             "When the graph first held it.")
      .def_property_readonly("retired_at_ns", [](const T& v) { return Ended(v.times.retired_at); },
                             "When the graph retired it, or None.");
}

void BindNode(py::module_& m) {
  py::class_<GraphNode> cls(m, "GraphNode", "A node of the memory graph: a turn, fact, entity, action...");
  cls.def_property_readonly("id", [](const GraphNode& n) { return n.id.ToHex(); })
      .def_readonly("kind", &GraphNode::kind)
      .def_property_readonly("text", [](const GraphNode& n) { return SnippetText(n.text); })
      .def_property_readonly("properties", [](const GraphNode& n) { return PropertiesOf(n.properties); },
                             "The node's JSON object as a dict.")
      .def_readonly("thread", &GraphNode::thread)
      .def_readonly("key", &GraphNode::key)
      .def_readonly("source", &GraphNode::source)
      .def_property_readonly("span", [](const GraphNode& n) { return ToPython(GraphNodeJson(n)["span"]); },
                             "The KV tokens it covers (cache, start, end, cache_tokens, tokens_hash), or None.")
      .def_property_readonly(
          "action",
          [](const GraphNode& n) -> std::optional<std::string> {
            if (n.action == ActionState::kNone) return std::nullopt;
            return ActionStateName(n.action);
          },
          "A pending action's state ('planned', 'started', 'done', 'failed'), else None.")
      .def_property_readonly("result", [](const GraphNode& n) { return HexOrNone(n.result); },
                             "A pending action's result node, or None.")
      .def("__repr__", [](const GraphNode& n) {
        return SnippetText("GraphNode(kind='" + n.kind + "', text='" + n.text.substr(0, 40) + "')");
      });
  AddTimes(cls);
  AddToDict(cls, GraphNodeJson);
}

void BindEdge(py::module_& m) {
  py::class_<GraphEdge> cls(m, "GraphEdge", "A typed, directed edge of the memory graph.");
  cls.def_property_readonly("id", [](const GraphEdge& e) { return e.id.ToHex(); })
      .def_readonly("kind", &GraphEdge::kind)
      .def_property_readonly("from_id", [](const GraphEdge& e) { return e.from.ToHex(); })
      .def_property_readonly("to_id", [](const GraphEdge& e) { return e.to.ToHex(); })
      .def_property_readonly("properties", [](const GraphEdge& e) { return PropertiesOf(e.properties); })
      .def("__repr__", [](const GraphEdge& e) { return "GraphEdge(kind='" + e.kind + "')"; });
  AddTimes(cls);
  AddToDict(cls, GraphEdgeJson);
}

void BindResults(py::module_& m) {
  py::class_<Neighborhood> hood(m, "Neighborhood", "Nodes around a start node, and the edges walked.");
  hood.def_readonly("nodes", &Neighborhood::nodes, "The start node first, then by distance.")
      .def_readonly("edges", &Neighborhood::edges);
  AddToDict(hood, NeighborhoodJson);
  py::class_<GraphChange> change(m, "GraphChange", "One difference between two graphs.");
  change
      .def_property_readonly("kind", [](const GraphChange& c) { return GraphChangeKindName(c.kind); },
                             "'added', 'removed', 'modified', 'invalidated', 'retired', 'action' or 'superseded'.")
      .def_readonly("node", &GraphChange::node, "The node as the newer graph has it (the older for 'removed').")
      .def_readonly("edge", &GraphChange::edge)
      .def_readonly("before", &GraphChange::before, "The node as the older graph had it.")
      .def_readonly("edge_before", &GraphChange::edge_before)
      .def_property_readonly("by", [](const GraphChange& c) { return HexOrNone(c.by); },
                             "For 'superseded': the newer fact's id.")
      .def("__repr__", [](const GraphChange& c) {
        return std::string("GraphChange(kind='") + GraphChangeKindName(c.kind) + "')";
      });
  AddToDict(change, GraphChangeJson);
  py::class_<GraphWriteResult> write(m, "GraphWrite", "What a graph write wrote.");
  write
      .def_property_readonly("nodes", [](const GraphWriteResult& r) {
        std::vector<std::string> ids;
        for (const GraphId& id : r.nodes) ids.push_back(id.ToHex());
        return ids;
      }, "The ids of the nodes given, in order.")
      .def_property_readonly("edges", [](const GraphWriteResult& r) {
        std::vector<std::string> ids;
        for (const GraphId& id : r.edges) ids.push_back(id.ToHex());
        return ids;
      }, "The ids of the links given, in order.")
      .def_readonly("records_changed", &GraphWriteResult::records_changed, "0 when it changed nothing.");
  AddToDict(write, GraphWriteResultJson);
}

}  // namespace

void BindGraphTypes(py::module_& m) {
  BindNode(m);
  BindEdge(m);
  BindResults(m);
}

}  // namespace vexfs::python
