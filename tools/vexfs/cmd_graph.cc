// The memory graph's write commands: graph add, link, invalidate, retire and
// action (docs/graph.md). Each is one batch: all of it is written or none.
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli.h"
#include "graph_args.h"
#include "vexfs/transcript.h"

namespace vexfs::cli {
namespace {

// "CACHE:START:END:CACHE_TOKENS[:TOKENS_HASH]"
Result<KvSpan> ParseKvSpan(const std::string& text) {
  std::vector<std::string> parts;
  size_t begin = 0;
  while (true) {
    size_t colon = text.find(':', begin);
    parts.push_back(text.substr(begin, colon - begin));
    if (colon == std::string::npos) break;
    begin = colon + 1;
  }
  auto bad = Status::InvalidArgument("span '" + text + "' is not CACHE:START:END:CACHE_TOKENS[:HASH]");
  if (parts.size() < 4 || parts.size() > 5) return bad;
  KvSpan span;
  span.cache = parts[0];
  try {
    span.start = std::stoull(parts[1]);
    span.end = std::stoull(parts[2]);
    span.cache_tokens = std::stoull(parts[3]);
  } catch (const std::exception&) {
    return bad;
  }
  if (parts.size() == 5) span.tokens_hash = parts[4];
  return span;
}

// Writes `batch` to the branch and prints what it wrote: the ids, one a line,
// or the write result as JSON.
void ApplyGraphBatch(Context& ctx, const GraphBatch& batch, const std::string& branch) {
  auto db = ctx.OpenDb();
  if (!db) return;
  auto result = db->graph().Apply(batch, branch);
  if (!result.ok()) return (void)ctx.Fail(result.status());
  if (ctx.global.json) return ctx.PrintJson(GraphWriteResultJson(*result));
  for (const GraphId& id : result->nodes) std::cout << id.ToHex() << "\n";
  for (const GraphId& id : result->edges) std::cout << id.ToHex() << "\n";
}

void AddGraphNodeAdd(CLI::App& graph, Context& ctx) {
  struct Args {
    NodeSpec spec;
    std::string valid_from, valid_to, span, branch;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = graph.add_subcommand("add", "Add a node, or update the one its key or entity name names");
  cmd->add_option("--kind", args->spec.kind,
                  "turn, tool_call, tool_result, artefact, fact, entity, plan, pending_action, or "
                  "your own [a-z0-9_]")
      ->required();
  cmd->add_option("--text", args->spec.text, "What search sees (an entity's name)");
  cmd->add_option("--properties", args->spec.properties, "A JSON object (64 KiB at most)");
  cmd->add_option("--thread", args->spec.thread, "The conversation or task it belongs to");
  cmd->add_option("--key", args->spec.key, "Upsert key (a pending action's idempotency key)");
  cmd->add_option("--source", args->spec.source, "Provenance: a node id or a tool name");
  cmd->add_option("--valid-from", args->valid_from, "When it became true (default: now)");
  cmd->add_option("--valid-to", args->valid_to, "When it stopped being true (default: never)");
  cmd->add_option("--span", args->span, "KV tokens it covers: CACHE:START:END:CACHE_TOKENS[:HASH]");
  cmd->add_option("--branch", args->branch, "Branch to write (default: current)");
  cmd->callback([&ctx, args] {
    NodeSpec spec = args->spec;
    if (!args->valid_from.empty()) {
      auto t = ParseTime(args->valid_from);
      if (!t.ok()) return (void)ctx.Fail(t.status());
      spec.valid_from = *t;
    }
    if (!args->valid_to.empty()) {
      auto t = ParseTime(args->valid_to);
      if (!t.ok()) return (void)ctx.Fail(t.status());
      spec.valid_to = *t;
    }
    if (!args->span.empty()) {
      auto span = ParseKvSpan(args->span);
      if (!span.ok()) return (void)ctx.Fail(span.status());
      spec.span = *span;
    }
    GraphBatch batch;
    batch.AddNode(std::move(spec));
    ApplyGraphBatch(ctx, batch, args->branch);
  });
}

void AddGraphLink(CLI::App& graph, Context& ctx) {
  struct Args {
    std::string from, kind, to, properties = "{}", branch;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = graph.add_subcommand("link", "Add an edge FROM -KIND-> TO (once: linking again changes nothing)");
  cmd->add_option("FROM", args->from, "Node: id, key:KEY or entity:NAME")->required();
  cmd->add_option("KIND", args->kind,
                  "replied_to, called, returned, produced, mentions, derived_from, supersedes, or your own")
      ->required();
  cmd->add_option("TO", args->to, "Node: id, key:KEY or entity:NAME")->required();
  cmd->add_option("--properties", args->properties, "A JSON object");
  cmd->add_option("--branch", args->branch, "Branch to write (default: current)");
  cmd->callback([&ctx, args] {
    auto from = ParseGraphRef(args->from);
    if (!from.ok()) return (void)ctx.Fail(from.status());
    auto to = ParseGraphRef(args->to);
    if (!to.ok()) return (void)ctx.Fail(to.status());
    GraphBatch batch;
    batch.Link({.kind = args->kind, .from = *from, .to = *to, .properties = args->properties});
    ApplyGraphBatch(ctx, batch, args->branch);
  });
}

void AddGraphInvalidateAndRetire(CLI::App& graph, Context& ctx) {
  struct Args {
    std::string ref, when, branch;
  };
  auto inv = std::make_shared<Args>();
  CLI::App* cmd = graph.add_subcommand("invalidate", "End a node's or edge's valid time (it stays readable)");
  cmd->add_option("ID", inv->ref, "Node or edge: id, key:KEY or entity:NAME")->required();
  cmd->add_option("--when", inv->when, "When it stopped being true (default: now)");
  cmd->add_option("--branch", inv->branch, "Branch to write (default: current)");
  cmd->callback([&ctx, inv] {
    auto id = ParseGraphRef(inv->ref);
    if (!id.ok()) return (void)ctx.Fail(id.status());
    TimeNs when = 0;
    if (!inv->when.empty()) {
      auto t = ParseTime(inv->when);
      if (!t.ok()) return (void)ctx.Fail(t.status());
      when = *t;
    }
    GraphBatch batch;
    batch.Invalidate(*id, when);
    ApplyGraphBatch(ctx, batch, inv->branch);
  });

  auto ret = std::make_shared<Args>();
  CLI::App* retire = graph.add_subcommand("retire", "End a node's or edge's record time: the graph no longer holds it");
  retire->add_option("ID", ret->ref, "Node or edge: id, key:KEY or entity:NAME")->required();
  retire->add_option("--branch", ret->branch, "Branch to write (default: current)");
  retire->callback([&ctx, ret] {
    auto id = ParseGraphRef(ret->ref);
    if (!id.ok()) return (void)ctx.Fail(id.status());
    GraphBatch batch;
    batch.Retire(*id);
    ApplyGraphBatch(ctx, batch, ret->branch);
  });
}

void AddGraphAction(CLI::App& graph, Context& ctx) {
  struct Args {
    std::string ref, state, result, branch;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = graph.add_subcommand("action", "Move a pending action to a state (a done one never moves again)");
  cmd->add_option("ID", args->ref, "The action: id or key:KEY")->required();
  cmd->add_option("STATE", args->state, "planned, started, done or failed")->required();
  cmd->add_option("--result", args->result, "The node holding its result");
  cmd->add_option("--branch", args->branch, "Branch to write (default: current)");
  cmd->callback([&ctx, args] {
    auto id = ParseGraphRef(args->ref);
    if (!id.ok()) return (void)ctx.Fail(id.status());
    auto state = ParseActionState(args->state);
    if (!state.ok()) return (void)ctx.Fail(state.status());
    GraphId result;
    if (!args->result.empty()) {
      auto parsed = ParseGraphRef(args->result);
      if (!parsed.ok()) return (void)ctx.Fail(parsed.status());
      result = *parsed;
    }
    GraphBatch batch;
    batch.SetAction(*id, *state, result);
    ApplyGraphBatch(ctx, batch, args->branch);
  });
}

Result<std::string> ReadTranscriptInput(const std::string& path) {
  std::ostringstream text;
  if (path == "-") {
    text << std::cin.rdbuf();
    return text.str();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("cannot read '" + path + "'");
  text << in.rdbuf();
  return text.str();
}

void AddGraphImport(CLI::App& graph, Context& ctx) {
  struct Args {
    std::string file, format = "openai", thread, branch;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = graph.add_subcommand(
      "import", "Import a conversation (JSON lines): turns, tool calls and results; again adds nothing");
  cmd->add_option("FILE", args->file, "The transcript, or - for stdin")->required();
  cmd->add_option("--format", args->format, "openai (chat messages, default) or anthropic (Messages)");
  cmd->add_option("--thread", args->thread, "The thread it becomes")->required();
  cmd->add_option("--branch", args->branch, "Branch to write (default: current)");
  cmd->callback([&ctx, args] {
    auto format = ParseTranscriptFormat(args->format);
    if (!format.ok()) return (void)ctx.Fail(format.status());
    auto text = ReadTranscriptInput(args->file);
    if (!text.ok()) return (void)ctx.Fail(text.status());
    auto batch = TranscriptToBatch(*text, *format, args->thread);
    if (!batch.ok()) return (void)ctx.Fail(batch.status().WithContext(args->file));
    auto db = ctx.OpenDb();
    if (!db) return;
    auto result = db->graph().Apply(*batch, args->branch);
    if (!result.ok()) return (void)ctx.Fail(result.status());
    if (ctx.global.json) return ctx.PrintJson(GraphWriteResultJson(*result));
    std::cout << "imported " << result->nodes.size() << " nodes and " << result->edges.size()
              << " edges into thread " << args->thread << " (" << result->records_changed
              << " records changed)\n";
  });
}

}  // namespace

void AddGraphCommands(CLI::App& app, Context& ctx) {
  CLI::App* graph = app.add_subcommand("graph", "The memory graph: turns, tool calls, facts, entities, pending actions");
  graph->require_subcommand(1);
  AddGraphNodeAdd(*graph, ctx);
  AddGraphLink(*graph, ctx);
  AddGraphInvalidateAndRetire(*graph, ctx);
  AddGraphAction(*graph, ctx);
  AddGraphImport(*graph, ctx);
  AddGraphReadCommands(*graph, ctx);
  AddGraphSearch(*graph, ctx);
}

}  // namespace vexfs::cli
