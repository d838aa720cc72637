// vexfs.Store's memory-graph calls (docs/graph.md): writes as JSON-like Python
// values checked by the library's own request decoder, reads as typed results.
// Arguments are turned into requests with the GIL held; the calls run without it.
#include <pybind11/stl.h>

#include "python/errors.h"
#include "python/json_value.h"
#include "python/py_store.h"
#include "python/time_arg.h"
#include "vexfs/json.h"
#include "vexfs/transcript.h"

namespace vexfs::python {
namespace {

namespace py = pybind11;
using py::arg;

GraphReadOptions ReadOf(const OpenStore& o, const std::optional<std::string>& at, const py::object& valid_at,
                        bool all) {
  GraphReadOptions read;
  read.branch = o.branch();
  read.snapshot = at.value_or("");
  read.valid_at = TimeOf(valid_at, "valid_at").value_or(0);
  read.include_invalid = all;
  read.include_retired = all;
  return read;
}

GraphId Ref(const std::string& ref) { return Take(ParseGraphRef(ref)); }

GraphWriteResult Apply(const PyStore& s, const GraphBatch& batch) {
  auto open = s.Live();
  return Take(WithoutGil([&] { return open->db().graph().Apply(batch, open->branch()); }));
}

GraphWriteResult Add(const PyStore& s, std::optional<py::list> nodes, std::optional<py::list> links) {
  nlohmann::json request = nlohmann::json::object();
  request["nodes"] = nodes ? FromPython(*nodes, "nodes") : nlohmann::json::array();
  request["links"] = links ? FromPython(*links, "links") : nlohmann::json::array();
  return Apply(s, Take(GraphBatchFromJson(request)));
}

std::optional<GraphNode> Node(const PyStore& s, const std::string& ref, std::optional<std::string> at,
                              py::object valid_at, bool all) {
  auto open = s.Live();
  GraphReadOptions read = ReadOf(*open, at, valid_at, all);
  GraphId id = Ref(ref);
  return Take(WithoutGil([&] { return open->db().graph().Node(id, read); }));
}

std::vector<GraphNode> Nodes(const PyStore& s, std::optional<std::string> kind, std::optional<std::string> thread,
                             std::optional<std::string> action, size_t limit, std::optional<std::string> at,
                             py::object valid_at, bool all) {
  auto open = s.Live();
  GraphQuery q;
  q.kind = kind.value_or("");
  q.thread = thread.value_or("");
  if (action) q.action = Take(ParseActionState(*action));
  q.limit = limit;
  q.read = ReadOf(*open, at, valid_at, all);
  return Take(WithoutGil([&] { return open->db().graph().Nodes(q); }));
}

Neighborhood Neighbors(const PyStore& s, const std::string& ref, int depth,
                       std::optional<std::vector<std::string>> edge_kinds, const std::string& direction,
                       size_t limit, std::optional<std::string> at, py::object valid_at, bool all) {
  auto open = s.Live();
  NeighborQuery q;
  q.start = Ref(ref);
  q.depth = depth;
  q.edge_kinds = edge_kinds.value_or(std::vector<std::string>{});
  if (direction == "out") {
    q.direction = GraphDirection::kOut;
  } else if (direction == "in") {
    q.direction = GraphDirection::kIn;
  } else if (direction != "both") {
    throw StatusError(Status::InvalidArgument("direction must be 'out', 'in' or 'both'"));
  }
  q.limit = limit;
  q.read = ReadOf(*open, at, valid_at, all);
  return Take(WithoutGil([&] { return open->db().graph().Neighbors(q); }));
}

struct GraphSearchArgs {
  std::string query;
  size_t k = 10;
  std::optional<std::string> mode;
  std::optional<std::vector<std::string>> kinds;
  std::optional<std::string> thread;
  std::optional<std::map<std::string, std::string>> properties;
  bool files = false;
  std::optional<std::string> at;
  py::object valid_at;
  bool all = false;
  bool wait = true;
};

SearchResult GraphSearch(const PyStore& s, const GraphSearchArgs& a) {
  auto open = s.Live();
  SearchRequest request;
  request.query = a.query;
  request.k = a.k;
  if (a.mode) request.mode = Take(ParseSearchMode(*a.mode));
  GraphReadOptions read = ReadOf(*open, a.at, a.valid_at, a.all);
  request.snapshot = read.snapshot;
  if (request.snapshot.empty()) request.branch = read.branch;
  NodeSearch nodes;
  nodes.files = a.files;
  nodes.kinds = a.kinds.value_or(std::vector<std::string>{});
  nodes.thread = a.thread.value_or("");
  nodes.properties = a.properties.value_or(std::map<std::string, std::string>{});
  nodes.valid_at = read.valid_at;
  nodes.include_invalid = read.include_invalid;
  nodes.include_retired = read.include_retired;
  bool wait = a.wait && !open->read_only();
  return Take(WithoutGil([&] { return open->db().SearchGraph(request, nodes, wait); }));
}

void BindWrites(py::class_<PyStore>& cls) {
  cls.def("graph_add", &Add, py::kw_only(), arg("nodes") = py::none(), arg("links") = py::none(),
          R"(Adds nodes and links to the memory graph in one transaction: all or none.

nodes: dicts with kind (required), text, properties (a dict), thread, key,
source, valid_from, valid_to. A node with a key (or an entity by name) is
updated in place, never duplicated. links: dicts with from, kind, to and
properties, naming nodes by id, 'key:KEY', 'entity:NAME' or '#N' (the N-th
node of this call). Raises InvalidArgumentError or NotFoundError naming the
bad item, and writes nothing.)")
      .def(
          "graph_invalidate",
          [](const PyStore& s, const std::string& ref, py::object when) {
            GraphBatch batch;
            batch.Invalidate(Ref(ref), TimeOf(when, "when").value_or(0));
            return Apply(s, batch);
          },
          arg("ref"), py::kw_only(), arg("when") = py::none(),
          "Ends a node's or edge's valid time (default: now); it stays readable as of earlier times.")
      .def(
          "graph_retire",
          [](const PyStore& s, const std::string& ref) {
            GraphBatch batch;
            batch.Retire(Ref(ref));
            return Apply(s, batch);
          },
          arg("ref"), "Ends a node's or edge's record time: the graph no longer holds it.")
      .def(
          "graph_action",
          [](const PyStore& s, const std::string& ref, const std::string& state, std::optional<std::string> result) {
            GraphBatch batch;
            batch.SetAction(Ref(ref), Take(ParseActionState(state)), result ? Ref(*result) : GraphId());
            return Apply(s, batch);
          },
          arg("ref"), arg("state"), py::kw_only(), arg("result") = py::none(),
          "Moves a pending action to 'planned', 'started', 'done' or 'failed' (with its result\n"
          "node). A done action never moves again: InvalidArgumentError.")
      .def(
          "graph_import",
          [](const PyStore& s, const std::string& text, const std::string& thread, const std::string& format) {
            TranscriptFormat parsed = Take(ParseTranscriptFormat(format));
            return Apply(s, Take(TranscriptToBatch(text, parsed, thread)));
          },
          arg("text"), py::kw_only(), arg("thread"), arg("format") = "openai",
          "Imports a conversation (JSON lines, 'openai' or 'anthropic' messages) into a\n"
          "thread; importing the same text again adds nothing.");
}

void BindReads(py::class_<PyStore>& cls) {
  cls.def("graph_node", &Node, arg("ref"), py::kw_only(), arg("at") = py::none(), arg("valid_at") = py::none(),
          arg("all") = false,
          "A node by id, 'key:KEY' or 'entity:NAME', or None: at a snapshot (at), as of a\n"
          "valid time, and with all=True also invalid and retired nodes.")
      .def("graph_nodes", &Nodes, py::kw_only(), arg("kind") = py::none(), arg("thread") = py::none(),
           arg("action") = py::none(), arg("limit") = 0, arg("at") = py::none(), arg("valid_at") = py::none(),
           arg("all") = false, "Nodes by kind, thread and action state, oldest valid first.")
      .def("graph_neighbors", &Neighbors, arg("ref"), py::kw_only(), arg("depth") = 1,
           arg("edge_kinds") = py::none(), arg("direction") = "both", arg("limit") = 0, arg("at") = py::none(),
           arg("valid_at") = py::none(), arg("all") = false,
           "Nodes within `depth` (1-8) edges of a node, and the edges walked.")
      .def(
          "graph_search",
          [](const PyStore& s, std::string query, size_t k, std::optional<std::string> mode,
             std::optional<std::vector<std::string>> kinds, std::optional<std::string> thread,
             std::optional<std::map<std::string, std::string>> properties, bool files,
             std::optional<std::string> at, py::object valid_at, bool all, bool wait) {
            return GraphSearch(s, {std::move(query), k, std::move(mode), std::move(kinds), std::move(thread),
                                   std::move(properties), files, std::move(at), std::move(valid_at), all,
                                   wait});
          },
          arg("query"), py::kw_only(), arg("k") = 10, arg("mode") = py::none(), arg("kinds") = py::none(),
          arg("thread") = py::none(), arg("properties") = py::none(), arg("files") = false,
          arg("at") = py::none(), arg("valid_at") = py::none(), arg("all") = false, arg("wait") = true,
          R"(Finds nodes by the words and meaning of their texts, with the files' search.

A node's hit has `node` (its id) and an empty `path`. kinds: any of these
kinds. thread: only this thread. properties: top-level properties that must
match (a string by its text, anything else by its JSON). files: rank the
files with the nodes, in one list. at: a snapshot's graph. valid_at, all: as
graph_nodes (by default only what is valid now). wait: index pending writes
first.)")
      .def("graph_diff",
           Unlocked(+[](OpenStore& o, std::string a, std::string b) -> Result<std::vector<GraphChange>> {
             VEXFS_ASSIGN_OR_RETURN(GraphDiff diff, o.db().graph().Diff(a, b, o.branch()));
             return std::move(diff.changes);
           }),
           arg("a"), arg("b") = "WORKING",
           "What the graph learned from `a` to `b` (snapshots, or 'WORKING').")
      .def(
          "graph_export",
          [](const PyStore& s, const std::string& thread, const std::string& format, std::optional<std::string> at) {
            auto open = s.Live();
            TranscriptFormat parsed = Take(ParseTranscriptFormat(format));
            GraphReadOptions read = ReadOf(*open, at, py::none(), false);
            return Take(WithoutGil([&] { return ExportTranscript(open->db().graph(), thread, parsed, read); }));
          },
          py::kw_only(), arg("thread"), arg("format") = "openai", arg("at") = py::none(),
          "An imported thread written back as JSON lines, equal to what was imported.");
}

}  // namespace

void BindStoreGraph(py::class_<PyStore>& cls) {
  BindWrites(cls);
  BindReads(cls);
}

}  // namespace vexfs::python
