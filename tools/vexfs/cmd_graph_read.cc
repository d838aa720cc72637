// The memory graph's read commands: graph get, list, neighbors, actions and
// diff, each with --json (docs/graph.md). They open the store read-only.
#include <iostream>

#include "cli.h"
#include "graph_args.h"
#include "vexfs/transcript.h"

namespace vexfs::cli {
namespace {

void PrintGraphNodes(const Context& ctx, const std::vector<GraphNode>& nodes) {
  if (ctx.global.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const GraphNode& n : nodes) out.push_back(GraphNodeJson(n));
    return ctx.PrintJson(out);
  }
  for (const GraphNode& n : nodes) std::cout << NodeLine(n) << "\n";
}

void PrintGraphNodeDetail(const GraphNode& n) {
  std::cout << "node     " << n.id.ToHex() << "\nkind     " << n.kind << "\n";
  if (!n.thread.empty()) std::cout << "thread   " << n.thread << "\n";
  if (!n.key.empty()) std::cout << "key      " << n.key << "\n";
  if (!n.source.empty()) std::cout << "source   " << n.source << "\n";
  std::cout << "valid    " << FormatTime(n.times.valid_from) << " .. "
            << (n.times.valid_to == kGraphForever ? "" : FormatTime(n.times.valid_to)) << "\n";
  std::cout << "recorded " << FormatTime(n.times.recorded_at);
  if (n.times.retired_at != kGraphForever) std::cout << ", retired " << FormatTime(n.times.retired_at);
  std::cout << "\n";
  if (n.action != ActionState::kNone) std::cout << "action   " << ActionStateName(n.action) << "\n";
  if (n.span) {
    std::cout << "span     " << n.span->cache << " [" << n.span->start << ", " << n.span->end << ")\n";
  }
  if (n.properties != "{}") std::cout << "props    " << n.properties << "\n";
  std::cout << "\n" << n.text << "\n";
}

void AddGraphGet(CLI::App& graph, Context& ctx) {
  struct Args {
    std::string ref;
    GraphReadArgs read;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = graph.add_subcommand("get", "Show a node or an edge");
  cmd->add_option("ID", args->ref, "Node or edge: id, key:KEY or entity:NAME")->required();
  AddGraphReadOptions(cmd, &args->read);
  cmd->callback([&ctx, args] {
    auto id = ParseGraphRef(args->ref);
    if (!id.ok()) return (void)ctx.Fail(id.status());
    auto read = ToReadOptions(args->read);
    if (!read.ok()) return (void)ctx.Fail(read.status());
    auto db = ctx.OpenDb(/*read_only=*/true);
    if (!db) return;
    auto node = db->graph().Node(*id, *read);
    if (!node.ok()) return (void)ctx.Fail(node.status());
    if (*node) {
      if (ctx.global.json) return ctx.PrintJson(GraphNodeJson(**node));
      return PrintGraphNodeDetail(**node);
    }
    auto edge = db->graph().Edge(*id, *read);
    if (!edge.ok()) return (void)ctx.Fail(edge.status());
    if (!*edge) {
      return (void)ctx.Fail(Status::NotFound("no node or edge " + id->ToHex() +
                                             " here (--all also shows items no longer valid)"));
    }
    if (ctx.global.json) return ctx.PrintJson(GraphEdgeJson(**edge));
    std::cout << EdgeLine(**edge) << "\n";
  });
}

void AddGraphList(CLI::App& graph, Context& ctx, const std::string& name, bool actions_only) {
  struct Args {
    GraphQuery query;
    std::string state;
    GraphReadArgs read;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = graph.add_subcommand(
      name, actions_only ? "List pending actions: what completed and must not run again, what is open"
                         : "List nodes by kind, thread or action state, oldest first");
  if (!actions_only) cmd->add_option("--kind", args->query.kind, "Only nodes of this kind");
  cmd->add_option("--thread", args->query.thread, "Only nodes of this thread");
  cmd->add_option(actions_only ? "--state" : "--action", args->state, "planned, started, done or failed");
  cmd->add_option("--limit", args->query.limit, "At most this many");
  AddGraphReadOptions(cmd, &args->read);
  cmd->callback([&ctx, args, actions_only] {
    GraphQuery query = args->query;
    if (actions_only) query.kind = node_kind::kPendingAction;
    if (!args->state.empty()) {
      auto state = ParseActionState(args->state);
      if (!state.ok()) return (void)ctx.Fail(state.status());
      query.action = *state;
    }
    auto read = ToReadOptions(args->read);
    if (!read.ok()) return (void)ctx.Fail(read.status());
    query.read = *read;
    auto db = ctx.OpenDb(/*read_only=*/true);
    if (!db) return;
    auto nodes = db->graph().Nodes(query);
    if (!nodes.ok()) return (void)ctx.Fail(nodes.status());
    PrintGraphNodes(ctx, *nodes);
  });
}

Result<GraphDirection> ParseGraphDirection(const std::string& text) {
  if (text == "out") return GraphDirection::kOut;
  if (text == "in") return GraphDirection::kIn;
  if (text == "both") return GraphDirection::kBoth;
  return Status::InvalidArgument("direction '" + text + "' is not out, in or both");
}

void AddGraphNeighbors(CLI::App& graph, Context& ctx) {
  struct Args {
    std::string ref, direction = "both";
    NeighborQuery query;
    GraphReadArgs read;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = graph.add_subcommand("neighbors", "Nodes reachable from a node within a depth");
  cmd->add_option("ID", args->ref, "Start node: id, key:KEY or entity:NAME")->required();
  cmd->add_option("--depth", args->query.depth, "Edges to follow, 1-8 (default 1)");
  cmd->add_option("--edge", args->query.edge_kinds, "Follow only edges of this kind (repeatable)");
  cmd->add_option("--direction", args->direction, "out, in or both (default)");
  cmd->add_option("--limit", args->query.limit, "At most this many nodes");
  AddGraphReadOptions(cmd, &args->read);
  cmd->callback([&ctx, args] {
    NeighborQuery query = args->query;
    auto start = ParseGraphRef(args->ref);
    if (!start.ok()) return (void)ctx.Fail(start.status());
    query.start = *start;
    auto direction = ParseGraphDirection(args->direction);
    if (!direction.ok()) return (void)ctx.Fail(direction.status());
    query.direction = *direction;
    auto read = ToReadOptions(args->read);
    if (!read.ok()) return (void)ctx.Fail(read.status());
    query.read = *read;
    auto db = ctx.OpenDb(/*read_only=*/true);
    if (!db) return;
    auto hood = db->graph().Neighbors(query);
    if (!hood.ok()) return (void)ctx.Fail(hood.status());
    if (ctx.global.json) return ctx.PrintJson(NeighborhoodJson(*hood));
    for (const GraphNode& n : hood->nodes) std::cout << NodeLine(n) << "\n";
    for (const GraphEdge& e : hood->edges) std::cout << EdgeLine(e) << "\n";
  });
}

// "+ added", "- removed", "~ modified", "! invalidated", "x retired",
// "> action", "^ superseded".
std::string GraphChangeLine(const GraphChange& c) {
  static const std::map<GraphChange::Kind, char> kMarks = {
      {GraphChange::Kind::kAdded, '+'},       {GraphChange::Kind::kRemoved, '-'},
      {GraphChange::Kind::kModified, '~'},    {GraphChange::Kind::kInvalidated, '!'},
      {GraphChange::Kind::kRetired, 'x'},     {GraphChange::Kind::kAction, '>'},
      {GraphChange::Kind::kSuperseded, '^'}};
  std::string line = std::string(1, kMarks.at(c.kind)) + " " + GraphChangeKindName(c.kind) + "  ";
  if (c.kind == GraphChange::Kind::kSuperseded && c.node) {
    return line + NodeLine(*c.node) + "  (by " + c.by.ToHex() + ")";
  }
  if (c.edge) return line + EdgeLine(*c.edge);
  return line + (c.node ? NodeLine(*c.node) : "");
}

void AddGraphDiff(CLI::App& graph, Context& ctx) {
  struct Args {
    std::string from, to = "WORKING", branch;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = graph.add_subcommand("diff", "What the graph learned between two snapshots (or WORKING)");
  cmd->add_option("FROM", args->from, "Snapshot name or id, or WORKING")->required();
  cmd->add_option("TO", args->to, "Snapshot name or id, or WORKING (default)");
  cmd->add_option("--branch", args->branch, "Whose WORKING (default: current branch)");
  cmd->callback([&ctx, args] {
    auto db = ctx.OpenDb(/*read_only=*/true);
    if (!db) return;
    auto diff = db->graph().Diff(args->from, args->to, args->branch);
    if (!diff.ok()) return (void)ctx.Fail(diff.status());
    if (ctx.global.json) return ctx.PrintJson(GraphDiffJson(*diff));
    for (const GraphChange& c : diff->changes) std::cout << GraphChangeLine(c) << "\n";
  });
}

void AddGraphExport(CLI::App& graph, Context& ctx) {
  struct Args {
    std::string thread, format = "openai";
    GraphReadArgs read;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = graph.add_subcommand("export", "Write an imported conversation back as JSON lines");
  cmd->add_option("--thread", args->thread, "The thread to write")->required();
  cmd->add_option("--format", args->format, "openai (default) or anthropic: the form it was imported in");
  AddGraphReadOptions(cmd, &args->read);
  cmd->callback([&ctx, args] {
    auto format = ParseTranscriptFormat(args->format);
    if (!format.ok()) return (void)ctx.Fail(format.status());
    auto read = ToReadOptions(args->read);
    if (!read.ok()) return (void)ctx.Fail(read.status());
    auto db = ctx.OpenDb(/*read_only=*/true);
    if (!db) return;
    auto lines = ExportTranscript(db->graph(), args->thread, *format, *read);
    if (!lines.ok()) return (void)ctx.Fail(lines.status());
    std::cout << *lines;
  });
}

}  // namespace

void AddGraphReadCommands(CLI::App& graph, Context& ctx) {
  AddGraphGet(graph, ctx);
  AddGraphList(graph, ctx, "list", /*actions_only=*/false);
  AddGraphList(graph, ctx, "actions", /*actions_only=*/true);
  AddGraphNeighbors(graph, ctx);
  AddGraphDiff(graph, ctx);
  AddGraphExport(graph, ctx);
}

}  // namespace vexfs::cli
