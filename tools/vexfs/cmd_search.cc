// Search commands: `search`, `index status|wait|rebuild|use`, `meta set|get|rm`
// and `vector set` (agent-supplied vectors).
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <ctime>
#include <iostream>
#include <iterator>

#include "cli.h"
#include "graph_args.h"
#include "vexfs/index.h"
#include "vexfs/paths.h"

namespace vexfs::cli {
namespace {

// Opens the store and its index, or reports the error (index null then).
struct OpenedIndex {
  std::unique_ptr<Db> db;
  Index* index = nullptr;  // owned by db
};

OpenedIndex OpenIndexOrFail(Context& ctx, bool read_only) {
  OpenedIndex out;
  out.db = ctx.OpenDb(read_only);
  if (!out.db) return out;
  auto index = out.db->index();
  if (!index.ok()) {
    ctx.Fail(index.status());
    return out;
  }
  out.index = *index;
  return out;
}

Status WaitWithProgress(Index& index) {
  Progress progress("indexing: queue entries");
  return index.Wait([&](uint64_t done, uint64_t total) { progress.Update(done, total); });
}

Result<std::pair<std::string, std::string>> SplitKeyValue(const std::string& text) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    return Status::InvalidArgument("'" + text + "' is not KEY=VALUE");
  }
  std::string key = text.substr(0, eq);
  for (char c : key) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') {
      return Status::InvalidArgument("metadata key '" + key +
                                     "' may use only letters, digits and . _ -");
    }
  }
  return std::make_pair(key, text.substr(eq + 1));
}

// A JSON array of numbers, as given on the command line or on stdin.
Result<std::vector<float>> ParseVector(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_array()) {
    return Status::InvalidArgument("a vector must be a JSON array of numbers");
  }
  std::vector<float> out;
  for (const auto& v : j) {
    if (!v.is_number()) return Status::InvalidArgument("a vector must hold only numbers");
    double d = v.get<double>();
    // Converting a double beyond float's range is undefined: make it infinity, which
    // the vector check then refuses by name.
    out.push_back(std::fabs(d) > FLT_MAX ? (d > 0 ? INFINITY : -INFINITY) : static_cast<float>(d));
  }
  if (out.empty()) return Status::InvalidArgument("the vector is empty");
  return out;
}

struct SearchArgs {
  SearchRequest request;
  std::string mode;  // "" = the library's choice
  std::string fusion = "rrf";
  std::string vector_json;
  std::vector<std::string> where;
  std::string after, before;
  int k = 10;
  bool no_wait = false;
  bool graph = false;  // `search --graph`: nodes with the files
};

Status BuildRequest(SearchArgs& a) {
  if (a.k <= 0) return Status::InvalidArgument("-k must be at least 1");
  a.request.k = static_cast<size_t>(a.k);
  if (!a.mode.empty()) {
    VEXFS_ASSIGN_OR_RETURN(a.request.mode, ParseSearchMode(a.mode));
  }
  VEXFS_ASSIGN_OR_RETURN(a.request.fusion, ParseFusionMethod(a.fusion));
  for (const std::string& w : a.where) {
    VEXFS_ASSIGN_OR_RETURN(auto kv, SplitKeyValue(w));
    a.request.where[kv.first] = kv.second;
  }
  if (!a.after.empty()) {
    VEXFS_ASSIGN_OR_RETURN(a.request.modified_after, ParseTime(a.after));
  }
  if (!a.before.empty()) {
    VEXFS_ASSIGN_OR_RETURN(a.request.modified_before, ParseTime(a.before));
  }
  if (!a.vector_json.empty()) {
    VEXFS_ASSIGN_OR_RETURN(a.request.vector, ParseVector(a.vector_json));
  }
  return Status::Ok();
}

void PrintResult(Context& ctx, const SearchResult& r) {
  if (ctx.global.json) return ctx.PrintJson(SearchResultJson(r));
  for (const SearchHit& h : r.hits) {
    std::string what = h.document.empty() ? h.path : "node " + h.document;
    std::printf("%.3f  %s  [%llu+%llu]\n       %s\n", h.score, what.c_str(),
                static_cast<unsigned long long>(h.offset),
                static_cast<unsigned long long>(h.length), h.snippet.c_str());
  }
  if (r.hits.empty()) std::cout << "no matches\n";
  if (!r.note.empty()) std::cerr << "vexfs: " << r.note << "\n";
  if (r.unindexed_files > 0) {
    std::cerr << "vexfs: " << r.unindexed_files << " file(s) not indexed yet\n";
  }
  if (r.unindexed_documents > 0) {
    std::cerr << "vexfs: " << r.unindexed_documents << " node(s) not indexed yet\n";
  }
}

// The query options `search` and `graph search` share.
void AddQueryOptions(CLI::App* cmd, SearchArgs* args) {
  cmd->add_option("query", args->request.query, "What to look for");
  cmd->add_option("--mode", args->mode, "lexical (BM25), dense (vectors) or hybrid (both, fused); default lexical, hybrid where the store's embedder is a sentence model, dense with --vector/--model");
  cmd->add_option("--fusion", args->fusion, "How hybrid merges the two rankings: rrf (default) or mix");
  cmd->add_flag("--feedback", args->request.feedback,
                "Expand the lexical query with terms of its best passages");
  cmd->add_option("-k", args->k, "How many results (default 10)");
  cmd->add_option("--model", args->request.model, "Search this model's vectors");
  cmd->add_option("--vector", args->vector_json, "Query vector as a JSON array");
  cmd->add_flag("--passages", args->request.passages, "Every matching passage, not one per file");
  cmd->add_flag("--no-wait", args->no_wait, "Do not index queued changes first");
}

void SearchGraphAndPrint(Context& ctx, const SearchArgs& args, const NodeSearch& nodes) {
  auto db = ctx.OpenDb();
  if (!db) return;
  if (!args.no_wait) {
    Progress progress("indexing: queue entries");
    Status st = db->WaitIndexed([&](uint64_t done, uint64_t total) { progress.Update(done, total); });
    if (!st.ok()) {
      std::cerr << "vexfs: indexing stopped (" << st.ToString() << "); searching what is indexed\n";
    }
  }
  auto result = db->SearchGraph(args.request, nodes);
  if (!result.ok()) return (void)ctx.Fail(result.status());
  PrintResult(ctx, *result);
}

void AddSearch(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<SearchArgs>();
  CLI::App* cmd = app.add_subcommand("search", "Find files by words and meaning (best passage per file)");
  AddQueryOptions(cmd, args.get());
  cmd->add_option("--at", args->request.snapshot, "Search this snapshot");
  cmd->add_option("--branch", args->request.branch, "Search this branch's working tree");
  cmd->add_option("--under", args->request.under, "Only paths at or below PATH");
  cmd->add_option("--where", args->where, "Metadata KEY=VALUE (repeatable; all must match)");
  cmd->add_option("--modified-after", args->after, "mtime >= TIME (seconds or YYYY-MM-DD)");
  cmd->add_option("--modified-before", args->before, "mtime < TIME");
  cmd->add_flag("--graph", args->graph, "Search the memory graph's nodes too (as `graph search --with-files`)");
  cmd->callback([&ctx, args] {
    Status st = BuildRequest(*args);
    if (!st.ok()) return (void)ctx.Fail(st);
    if (args->graph) {
      NodeSearch nodes;
      nodes.files = true;
      return SearchGraphAndPrint(ctx, *args, nodes);
    }
    OpenedIndex opened = OpenIndexOrFail(ctx, /*read_only=*/false);
    if (!opened.index) return;
    if (!args->no_wait && !(st = WaitWithProgress(*opened.index)).ok()) {
      // What is indexed can still be searched; the rest stays queued.
      std::cerr << "vexfs: indexing stopped (" << st.ToString() << "); searching what is indexed\n";
    }
    auto result = opened.index->Search(args->request);
    if (!result.ok()) return (void)ctx.Fail(result.status());
    PrintResult(ctx, *result);
  });
}

void AddIndexStatus(CLI::App& parent, Context& ctx) {
  CLI::App* cmd = parent.add_subcommand("status", "Show the indexing queue and the models");
  cmd->callback([&ctx] {
    OpenedIndex opened = OpenIndexOrFail(ctx, /*read_only=*/true);
    if (!opened.index) return;
    auto status = opened.index->GetStatus();
    if (!status.ok()) return (void)ctx.Fail(status.status());
    if (ctx.global.json) {
      nlohmann::json models = nlohmann::json::array();
      for (const ModelStatus& m : status->models) {
        models.push_back({{"name", m.name}, {"dim", m.dim}, {"metric", m.metric},
                          {"kind", m.kind}, {"fingerprint", m.fingerprint},
                          {"vectors", m.vectors}});
      }
      return ctx.PrintJson({{"queued", status->queued}, {"embedder", status->embedder},
                            {"models", models}});
    }
    std::cout << "queued:   " << status->queued << "\nembedder: " << status->embedder << "\n";
    for (const ModelStatus& m : status->models) {
      std::cout << "model:    " << m.name << " (" << m.kind << ", dim " << m.dim << ", "
                << m.metric << ") " << m.vectors << " vectors\n";
    }
  });
}

void AddIndexWait(CLI::App& parent, Context& ctx) {
  CLI::App* cmd = parent.add_subcommand(
      "wait", "Index every queued change now, and build the graph and Xapian files searches use");
  cmd->callback([&ctx] {
    OpenedIndex opened = OpenIndexOrFail(ctx, /*read_only=*/false);
    if (!opened.index) return;
    Progress drained("indexing: queue entries");
    Progress built("indexing: graph vectors");
    Status st = opened.db->WaitIndexed(
        [&](uint64_t done, uint64_t total) { drained.Update(done, total); },
        [&](uint64_t done, uint64_t total) { built.Update(done, total); });
    if (!st.ok()) ctx.Fail(st);
  });
}

void AddIndexRebuild(CLI::App& parent, Context& ctx) {
  auto model = std::make_shared<std::string>();
  CLI::App* cmd = parent.add_subcommand(
      "rebuild", "Rebuild the ANN and Xapian files from the store (re-embed with --model)");
  cmd->add_option("--model", *model,
                  "Re-index every file and snapshot with this embedder first (as `index use`)");
  cmd->callback([&ctx, model] {
    if (!model->empty()) {
      auto db = ctx.OpenDb();
      if (!db) return;
      Status st = db->SetEmbedder(*model);
      if (!st.ok()) return (void)ctx.Fail(st);
    }
    OpenedIndex opened = OpenIndexOrFail(ctx, /*read_only=*/false);
    if (!opened.index) return;
    if (!model->empty()) {
      Status st = WaitWithProgress(*opened.index);
      if (!st.ok()) return (void)ctx.Fail(st);
    }
    Progress progress("rebuild: records");
    Status st = opened.index->Rebuild([&](uint64_t d, uint64_t t) { progress.Update(d, t); });
    if (!st.ok()) ctx.Fail(st);
  });
}

void AddIndexUse(CLI::App& parent, Context& ctx) {
  auto spec = std::make_shared<std::string>();
  CLI::App* cmd = parent.add_subcommand("use", "Choose the text embedder (glove, glove:PATH, gguf:PATH, hash, hash:DIM, exec:COMMAND)");
  cmd->add_option("embedder", *spec, "Embedder spec")->required();
  cmd->callback([&ctx, spec] {
    auto db = ctx.OpenDb();
    if (!db) return;
    Status st = db->SetEmbedder(*spec);
    if (!st.ok()) ctx.Fail(st);
  });
}

void AddMetaSet(CLI::App& parent, Context& ctx) {
  auto path = std::make_shared<std::string>();
  auto pairs = std::make_shared<std::vector<std::string>>();
  CLI::App* cmd = parent.add_subcommand("set", "Set metadata KEY=VALUE on a file");
  cmd->add_option("path", *path, "File in the store")->required();
  cmd->add_option("pairs", *pairs, "KEY=VALUE ...")->required();
  cmd->callback([&ctx, path, pairs] {
    std::vector<std::pair<std::string, std::string>> kvs;
    for (const std::string& p : *pairs) {
      auto kv = SplitKeyValue(p);
      if (!kv.ok()) return (void)ctx.Fail(kv.status());
      kvs.push_back(*kv);
    }
    auto db = ctx.OpenDb();
    if (!db) return;
    Store* store = &db->store();
    auto tree = store->Tree();
    if (!tree.ok()) return (void)ctx.Fail(tree.status());
    Status st = (*tree)->Edit([&](TreeEditor& ed) -> Status {
      VEXFS_ASSIGN_OR_RETURN(uint64_t ino, ed.ResolvePath(*path));
      for (const auto& [k, v] : kvs) VEXFS_RETURN_IF_ERROR(ed.SetXattr(ino, MetaXattrName(k), v));
      return Status::Ok();
    });
    if (!st.ok()) ctx.Fail(st);
  });
}

void AddMetaGet(CLI::App& parent, Context& ctx) {
  auto path = std::make_shared<std::string>();
  auto at = std::make_shared<std::string>();
  CLI::App* cmd = parent.add_subcommand("get", "Show a file's metadata");
  cmd->add_option("path", *path, "File in the store")->required();
  cmd->add_option("--at", *at, "Read it from this snapshot");
  cmd->callback([&ctx, path, at] {
    OpenedView opened = OpenViewOrFail(ctx, *at, "");
    if (!opened.view) return;
    auto xattrs = opened.view->Xattrs(*path);
    if (!xattrs.ok()) return (void)ctx.Fail(xattrs.status());
    std::string prefix = MetaXattrName("");
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [name, value] : *xattrs) {
      if (name.starts_with(prefix)) out[name.substr(prefix.size())] = value;
    }
    if (ctx.global.json) return ctx.PrintJson(out);
    for (const auto& [k, v] : out.items()) std::cout << k << "=" << v.get<std::string>() << "\n";
  });
}

void AddVectorSet(CLI::App& parent, Context& ctx) {
  struct Args {
    std::string path, model, values;
    std::vector<uint64_t> range;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = parent.add_subcommand(
      "set", "Attach a vector to a file (or a byte range) under a model name");
  cmd->add_option("path", a->path, "File in the store")->required();
  cmd->add_option("--model", a->model, "Model name (registered on first use)")->required();
  cmd->add_option("--values", a->values, "JSON array of numbers (default: read stdin)");
  cmd->add_option("--range", a->range, "OFFSET LENGTH of the passage")->expected(2);
  cmd->callback([&ctx, a] {
    std::string text = a->values;
    if (text.empty()) text.assign(std::istreambuf_iterator<char>(std::cin), {});
    auto values = ParseVector(text);
    if (!values.ok()) return (void)ctx.Fail(values.status());
    OpenedIndex opened = OpenIndexOrFail(ctx, /*read_only=*/false);
    if (!opened.index) return;
    std::optional<std::pair<uint64_t, uint64_t>> range;
    if (a->range.size() == 2) range = std::make_pair(a->range[0], a->range[1]);
    Status st = opened.index->SetVector(a->path, a->model, *values, "", range);
    if (!st.ok()) ctx.Fail(st);
  });
}

}  // namespace

void AddGraphSearch(CLI::App& graph, Context& ctx) {
  struct Args {
    SearchArgs search;
    NodeSearch nodes;
    std::vector<std::string> properties;
    GraphReadArgs read;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = graph.add_subcommand(
      "search", "Find nodes by the words and meaning of their texts (with --with-files, files too)");
  AddQueryOptions(cmd, &args->search);
  cmd->add_option("--kind", args->nodes.kinds, "Only nodes of this kind (repeatable: any of them)");
  cmd->add_option("--thread", args->nodes.thread, "Only nodes of this thread");
  cmd->add_option("--property", args->properties,
                  "Top-level property KEY=VALUE (repeatable; all must match)");
  cmd->add_flag("--with-files", args->nodes.files, "Rank the files with the nodes, in one list");
  cmd->add_option("--under", args->search.request.under, "With --with-files: only paths at or below PATH");
  AddGraphReadOptions(cmd, &args->read);
  cmd->callback([&ctx, args] {
    Status st = BuildRequest(args->search);
    if (!st.ok()) return (void)ctx.Fail(st);
    for (const std::string& p : args->properties) {
      size_t eq = p.find('=');
      if (eq == std::string::npos || eq == 0) {
        return (void)ctx.Fail(Status::InvalidArgument("property '" + p + "' is not KEY=VALUE"));
      }
      args->nodes.properties[p.substr(0, eq)] = p.substr(eq + 1);
    }
    auto read = ToReadOptions(args->read);
    if (!read.ok()) return (void)ctx.Fail(read.status());
    args->search.request.snapshot = read->snapshot;
    args->search.request.branch = read->branch;
    args->nodes.valid_at = read->valid_at;
    args->nodes.include_invalid = read->include_invalid;
    args->nodes.include_retired = read->include_retired;
    SearchGraphAndPrint(ctx, args->search, args->nodes);
  });
}

void AddSearchCommands(CLI::App& app, Context& ctx) {
  AddSearch(app, ctx);
  CLI::App* index = app.add_subcommand("index", "Indexing queue, models and ANN files");
  index->require_subcommand(1);
  AddIndexStatus(*index, ctx);
  AddIndexWait(*index, ctx);
  AddIndexRebuild(*index, ctx);
  AddIndexUse(*index, ctx);
  CLI::App* meta = app.add_subcommand("meta", "File metadata used by search filters");
  meta->require_subcommand(1);
  AddMetaSet(*meta, ctx);
  AddMetaGet(*meta, ctx);
  CLI::App* vector = app.add_subcommand("vector", "Agent-supplied vectors");
  vector->require_subcommand(1);
  AddVectorSet(*vector, ctx);
}

}  // namespace vexfs::cli
