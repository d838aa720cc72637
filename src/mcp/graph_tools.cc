// The MCP memory-graph tools: graph_add (nodes and links in one atomic call),
// graph_link, graph_invalidate, graph_action, graph_neighbors, graph_search,
// graph_diff and pending_actions, over the served branch's graph (docs/graph.md).
#include "mcp/tool.h"
#include "vexfs/json.h"

namespace vexfs::mcp {
namespace {

using nlohmann::json;

inline constexpr size_t kMaxGraphItems = 1000;

json Text(const char* description) { return {{"type", "string"}, {"description", description}}; }

// A time argument as ParseTime reads it; 0 (unchanged / now) when absent.
Result<TimeNs> TimeArg(ToolArgs& args, const std::string& name) {
  VEXFS_ASSIGN_OR_RETURN(auto text, args.OptionalString(name));
  if (!text) return TimeNs{0};
  return ParseTime(*text);
}

Result<json> Add(ServedStore& served, ToolArgs& args) {
  VEXFS_ASSIGN_OR_RETURN(json nodes, args.Array("nodes"));
  VEXFS_ASSIGN_OR_RETURN(json links, args.Array("links"));
  VEXFS_RETURN_IF_ERROR(args.RefuseUnknown());
  VEXFS_ASSIGN_OR_RETURN(GraphBatch batch,
                         GraphBatchFromJson(json{{"nodes", nodes}, {"links", links}}, kMaxGraphItems));
  VEXFS_ASSIGN_OR_RETURN(GraphWriteResult result, served.db().graph().Apply(batch, served.branch()));
  return GraphWriteResultJson(result);
}

Result<json> Link(ServedStore& served, ToolArgs& args) {
  VEXFS_ASSIGN_OR_RETURN(std::string from, args.String("from"));
  VEXFS_ASSIGN_OR_RETURN(std::string kind, args.String("kind"));
  VEXFS_ASSIGN_OR_RETURN(std::string to, args.String("to"));
  VEXFS_ASSIGN_OR_RETURN(std::string props, args.ObjectText("properties", "{}"));
  VEXFS_RETURN_IF_ERROR(args.RefuseUnknown());
  VEXFS_ASSIGN_OR_RETURN(GraphId from_id, ParseGraphRef(from));
  VEXFS_ASSIGN_OR_RETURN(GraphId to_id, ParseGraphRef(to));
  GraphBatch batch;
  batch.Link({.kind = kind, .from = from_id, .to = to_id, .properties = props});
  VEXFS_ASSIGN_OR_RETURN(GraphWriteResult result, served.db().graph().Apply(batch, served.branch()));
  return GraphWriteResultJson(result);
}

Result<json> Invalidate(ServedStore& served, ToolArgs& args) {
  VEXFS_ASSIGN_OR_RETURN(std::string ref, args.String("id"));
  VEXFS_ASSIGN_OR_RETURN(TimeNs when, TimeArg(args, "when"));
  VEXFS_RETURN_IF_ERROR(args.RefuseUnknown());
  VEXFS_ASSIGN_OR_RETURN(GraphId id, ParseGraphRef(ref));
  GraphBatch batch;
  batch.Invalidate(id, when);
  VEXFS_ASSIGN_OR_RETURN(GraphWriteResult result, served.db().graph().Apply(batch, served.branch()));
  return GraphWriteResultJson(result);
}

Result<json> Action(ServedStore& served, ToolArgs& args) {
  VEXFS_ASSIGN_OR_RETURN(std::string ref, args.String("id"));
  VEXFS_ASSIGN_OR_RETURN(std::string state_name, args.String("state"));
  VEXFS_ASSIGN_OR_RETURN(auto result_ref, args.OptionalString("result"));
  VEXFS_RETURN_IF_ERROR(args.RefuseUnknown());
  VEXFS_ASSIGN_OR_RETURN(GraphId id, ParseGraphRef(ref));
  VEXFS_ASSIGN_OR_RETURN(ActionState state, ParseActionState(state_name));
  GraphId result;
  if (result_ref) {
    VEXFS_ASSIGN_OR_RETURN(result, ParseGraphRef(*result_ref));
  }
  GraphBatch batch;
  batch.SetAction(id, state, result);
  VEXFS_RETURN_IF_ERROR(served.db().graph().Apply(batch, served.branch()).status());
  GraphReadOptions read{.branch = served.branch(), .include_invalid = true, .include_retired = true};
  VEXFS_ASSIGN_OR_RETURN(auto node, served.db().graph().Node(id, read));
  if (!node) return Status::NotFound("action " + id.ToHex() + " is gone");
  return GraphNodeJson(*node);
}

Result<GraphReadOptions> ReadArgs(ServedStore& served, ToolArgs& args) {
  GraphReadOptions read;
  read.branch = served.branch();
  VEXFS_ASSIGN_OR_RETURN(read.snapshot, args.StringOr("at", ""));
  VEXFS_ASSIGN_OR_RETURN(read.valid_at, TimeArg(args, "valid_at"));
  VEXFS_ASSIGN_OR_RETURN(bool all, args.Bool("all", false));
  read.include_invalid = all;
  read.include_retired = all;
  return read;
}

Result<json> Neighbors(ServedStore& served, ToolArgs& args) {
  NeighborQuery q;
  VEXFS_ASSIGN_OR_RETURN(std::string start, args.String("id"));
  VEXFS_ASSIGN_OR_RETURN(int64_t depth, args.Int("depth", 1, 1, 8));
  VEXFS_ASSIGN_OR_RETURN(q.edge_kinds, args.StringList("edge_kinds"));
  VEXFS_ASSIGN_OR_RETURN(std::string direction, args.StringOr("direction", "both"));
  VEXFS_ASSIGN_OR_RETURN(int64_t limit, args.Int("limit", 100, 1, kMaxGraphItems));
  VEXFS_ASSIGN_OR_RETURN(q.read, ReadArgs(served, args));
  VEXFS_RETURN_IF_ERROR(args.RefuseUnknown());
  VEXFS_ASSIGN_OR_RETURN(q.start, ParseGraphRef(start));
  q.depth = static_cast<int>(depth);
  q.limit = static_cast<size_t>(limit);
  if (direction == "out") {
    q.direction = GraphDirection::kOut;
  } else if (direction == "in") {
    q.direction = GraphDirection::kIn;
  } else if (direction != "both") {
    return Status::InvalidArgument("argument 'direction' must be out, in or both");
  }
  VEXFS_ASSIGN_OR_RETURN(Neighborhood hood, served.db().graph().Neighbors(q));
  return NeighborhoodJson(hood);
}

Result<json> Search(ServedStore& served, ToolArgs& args) {
  SearchRequest request;
  NodeSearch nodes;
  VEXFS_ASSIGN_OR_RETURN(request.query, args.String("query"));
  VEXFS_ASSIGN_OR_RETURN(int64_t k, args.Int("k", 10, 1, kMaxSearchHits));
  request.k = static_cast<size_t>(k);
  VEXFS_ASSIGN_OR_RETURN(auto mode, args.OptionalString("mode"));
  VEXFS_ASSIGN_OR_RETURN(nodes.kinds, args.StringList("kinds"));
  VEXFS_ASSIGN_OR_RETURN(nodes.thread, args.StringOr("thread", ""));
  VEXFS_ASSIGN_OR_RETURN(nodes.properties, args.StringMap("properties"));
  VEXFS_ASSIGN_OR_RETURN(nodes.files, args.Bool("files", false));
  VEXFS_ASSIGN_OR_RETURN(GraphReadOptions read, ReadArgs(served, args));
  VEXFS_RETURN_IF_ERROR(args.RefuseUnknown());
  if (mode) {
    VEXFS_ASSIGN_OR_RETURN(request.mode, ParseSearchMode(*mode));
  }
  request.snapshot = read.snapshot;
  if (request.snapshot.empty()) request.branch = read.branch;
  nodes.valid_at = read.valid_at;
  nodes.include_invalid = read.include_invalid;
  nodes.include_retired = read.include_retired;
  // What this session (or any process) wrote is searchable before the answer.
  VEXFS_ASSIGN_OR_RETURN(SearchResult result, served.db().SearchGraph(request, nodes, /*wait=*/true));
  return SearchResultJson(result);
}

Result<json> Diff(ServedStore& served, ToolArgs& args) {
  VEXFS_ASSIGN_OR_RETURN(std::string from, args.String("from"));
  VEXFS_ASSIGN_OR_RETURN(std::string to, args.StringOr("to", "WORKING"));
  VEXFS_RETURN_IF_ERROR(args.RefuseUnknown());
  VEXFS_ASSIGN_OR_RETURN(GraphDiff diff, served.db().graph().Diff(from, to, served.branch()));
  json out = GraphDiffJson(diff);
  size_t total = diff.changes.size();
  if (total > kMaxDiffEntries) out["changes"].erase(out["changes"].begin() + kMaxDiffEntries, out["changes"].end());
  out["total"] = total;
  out["truncated"] = total > kMaxDiffEntries;
  return out;
}

Result<json> PendingActions(ServedStore& served, ToolArgs& args) {
  GraphQuery q{.kind = node_kind::kPendingAction};
  VEXFS_ASSIGN_OR_RETURN(auto state, args.OptionalString("state"));
  VEXFS_ASSIGN_OR_RETURN(q.thread, args.StringOr("thread", ""));
  VEXFS_ASSIGN_OR_RETURN(q.read, ReadArgs(served, args));
  VEXFS_RETURN_IF_ERROR(args.RefuseUnknown());
  if (state) {
    VEXFS_ASSIGN_OR_RETURN(q.action, ParseActionState(*state));
  }
  q.limit = kMaxGraphItems;
  VEXFS_ASSIGN_OR_RETURN(auto nodes, served.db().graph().Nodes(q));
  json out = json::array();
  for (const GraphNode& n : nodes) out.push_back(GraphNodeJson(n));
  return json{{"actions", out}};
}

json ReadProperties() {
  return {{"at", Text("Read the graph of this snapshot instead of the working graph")},
          {"valid_at", Text("Items valid at this time (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ; default now)")},
          {"all", {{"type", "boolean"}, {"description", "Also items no longer valid, and retired ones"}}}};
}

json NodeSchema() {
  return ObjectSchema(
      {{"kind", Text("turn, tool_call, tool_result, artefact, fact, entity, plan, pending_action, or your own")},
       {"text", Text("What search sees (an entity's name)")},
       {"properties", {{"type", "object"}}},
       {"thread", Text("The conversation or task it belongs to")},
       {"key", Text("Upsert key: the same key is the same node (a pending action's idempotency key)")},
       {"source", Text("Provenance: a node id or tool name")},
       {"valid_from", Text("When it became true (default now)")},
       {"valid_to", Text("When it stopped being true (default never)")}},
      {"kind"});
}

json LinkSchema(const char* ref) {
  return ObjectSchema({{"from", Text(ref)},
                       {"kind", Text("replied_to, called, returned, produced, mentions, derived_from, "
                                     "supersedes (ends the older fact's validity), or your own")},
                       {"to", Text(ref)},
                       {"properties", {{"type", "object"}}}},
                      {"from", "kind", "to"});
}

}  // namespace

void AddGraphTools(std::vector<Tool>* tools) {
  tools->push_back(
      {"graph_add", "Add to the memory graph",
       "Add nodes (facts, entities, turns, plans, pending actions...) and links between them in one "
       "atomic call: all are written or, on any bad item, none. A node with a key (or an entity by "
       "name) is updated in place, never duplicated. Links name nodes by id, key:KEY, entity:NAME, "
       "or #N for the N-th node of this call.",
       ObjectSchema({{"nodes", {{"type", "array"}, {"items", NodeSchema()}}},
                     {"links", {{"type", "array"}, {"items", LinkSchema("id, key:KEY, entity:NAME or #N")}}}}),
       {},
       Add});
  tools->push_back({"graph_link", "Link two nodes",
                    "Add a typed edge between two nodes (once: linking again changes nothing). A 'supersedes' "
                    "link from a newer fact to an older one ends the older fact's validity.",
                    LinkSchema("Node: id, key:KEY or entity:NAME"), {.idempotent = true}, Link});
  tools->push_back({"graph_invalidate", "End a fact's validity",
                    "Mark a node or edge as no longer true from a time (default now). Nothing is deleted: "
                    "reads as of earlier times still see it.",
                    ObjectSchema({{"id", Text("Node or edge: id, key:KEY or entity:NAME")},
                                  {"when", Text("When it stopped being true (default now)")}},
                                 {"id"}),
                    {.idempotent = true}, Invalidate});
  tools->push_back({"graph_action", "Move a pending action",
                    "Set a pending action's state: planned, started, done or failed (with its result node). A "
                    "done action never moves again, so it is never run twice.",
                    ObjectSchema({{"id", Text("The action: id or key:KEY")},
                                  {"state", Text("planned, started, done or failed")},
                                  {"result", Text("The node holding its result")}},
                                 {"id", "state"}),
                    {.idempotent = true}, Action});
  json neighbor_props = ReadProperties();
  neighbor_props["id"] = Text("Start node: id, key:KEY or entity:NAME");
  neighbor_props["depth"] = {{"type", "integer"}, {"minimum", 1}, {"maximum", 8}};
  neighbor_props["edge_kinds"] = {{"type", "array"}, {"items", {{"type", "string"}}}};
  neighbor_props["direction"] = {{"type", "string"}, {"enum", {"out", "in", "both"}}};
  neighbor_props["limit"] = {{"type", "integer"}, {"minimum", 1}, {"maximum", kMaxGraphItems}};
  tools->push_back({"graph_neighbors", "Explore the memory graph",
                    "Nodes reachable from a node within a depth (1-8), with the edges walked; by default "
                    "only what is valid now.",
                    ObjectSchema(neighbor_props, {"id"}), {.read_only = true, .idempotent = true}, Neighbors});
  json search_props = ReadProperties();
  search_props["query"] = Text("What to look for");
  search_props["k"] = {{"type", "integer"}, {"minimum", 1}, {"maximum", kMaxSearchHits}};
  search_props["mode"] = {{"type", "string"}, {"enum", {"hybrid", "lexical", "dense"}}};
  search_props["kinds"] = {{"type", "array"}, {"items", {{"type", "string"}}},
                           {"description", "Only nodes of these kinds (fact, turn, ...)"}};
  search_props["thread"] = Text("Only nodes of this thread");
  search_props["properties"] = {{"type", "object"},
                                {"additionalProperties", {{"type", "string"}}},
                                {"description", "Top-level properties that must match, KEY: VALUE"}};
  search_props["files"] = {{"type", "boolean"},
                           {"description", "Rank the stored files with the nodes, in one list"}};
  tools->push_back({"graph_search", "Recall from the memory graph",
                    "Find the nodes (facts, turns, tool calls and results, entities, plans) whose text best "
                    "answers 'query', by the same search as files (lexical by default, hybrid where the "
                    "embedder is a sentence model); with files=true the files rank in the same list. A "
                    "node's hit has 'node' (its id, for graph_neighbors) instead of 'path'. Only what is "
                    "valid now unless valid_at or all say otherwise; 'at' searches a snapshot's graph.",
                    ObjectSchema(search_props, {"query"}), {.read_only = true, .idempotent = true}, Search});
  tools->push_back({"graph_diff", "What the agent learned",
                    "Graph changes from one snapshot to another, or to the working graph (\"WORKING\", the "
                    "default 'to'): nodes and edges added, removed, modified, invalidated, retired, actions "
                    "moved, facts superseded. At most 1000 changes.",
                    ObjectSchema({{"from", Text("Snapshot name or id, or WORKING")},
                                  {"to", Text("Snapshot name or id, or WORKING (default)")}},
                                 {"from"}),
                    {.read_only = true, .idempotent = true}, Diff});
  json action_props = ReadProperties();
  action_props["state"] = {{"type", "string"}, {"enum", {"planned", "started", "done", "failed"}}};
  action_props["thread"] = Text("Only actions of this thread");
  tools->push_back({"pending_actions", "List pending actions",
                    "Pending actions with their states: what completed and must never run again (done), "
                    "what is still open (planned, started, failed).",
                    ObjectSchema(action_props), {.read_only = true, .idempotent = true}, PendingActions});
}

}  // namespace vexfs::mcp
