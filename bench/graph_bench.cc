// The memory graph against SQLite, the engine most local agent memories use
// (bench/sqlite_graph.h), in one run on one disk: inserts batched and one per
// call (each durable: VexFS syncs every commit, SQLite runs WAL with
// synchronous=FULL and checks foreign keys), neighbour queries at depth 1 and
// 2, node-text search (BM25: the index over every text, then k = 10 queries;
// SQLite with FTS5), bytes per node and edge; then, at each of --sizes, a
// snapshot and a diff
// after --changes changes, which should cost the same whatever the graph's
// size. SQLite has no snapshot or diff: copying the database (VACUUM INTO) and
// comparing two copies (EXCEPT) is its nearest, measured beside them.
// Every graph has three edges per node on average. The --sizes graphs are
// loaded in bulk without syncing (both engines), then synced again for the
// snapshots and diffs measured on them. --no-sync runs both engines without
// flushing their commits, which shows what each costs besides the disk.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <iostream>
#include <map>

#include "bench_util.h"
#include "sqlite_graph.h"
#include "vexfs/db.h"

namespace vexfs::bench {
namespace {

struct Options {
  size_t nodes = 1000000;
  size_t edges_per_node = 3;
  size_t one_per_call = 1000;
  size_t queries = 2000;
  size_t search_queries = 200;
  std::vector<size_t> sizes = {10000, 100000, 1000000};
  size_t changes = 10;
  int reps = 5;
  std::string dir = "/tmp";
  bool no_sync = false;
  size_t bulk_batch = 10000;
  double insert_limit_s = 0;  // 0: the whole --nodes graph, however long it takes
};

const char* const kEdgeKinds[] = {"mentions", "derived_from", "replied_to"};

GraphId NodeId(const std::string& prefix, size_t i) { return GraphIdForKey(prefix + std::to_string(i)); }

NodeSpec NodeAt(const std::string& prefix, size_t i) {
  return NodeSpec{.kind = "fact",
                  .text = "fact " + std::to_string(i) + " about the deploy of service " + std::to_string(i % 97),
                  .thread = "thread-" + std::to_string(i % 100),
                  .key = prefix + std::to_string(i),
                  .valid_from = 1};
}

BenchNode SqliteNode(const NodeSpec& spec) {
  return BenchNode{std::string(GraphIdForKey(spec.key).AsBytes()), spec.kind, spec.text, spec.thread};
}

BenchEdge SqliteEdge(const EdgeSpec& e, const std::string& id_key) {
  return BenchEdge{std::string(GraphIdForKey(id_key).AsBytes()), e.kind, std::string(e.from.AsBytes()),
                   std::string(e.to.AsBytes())};
}

// The graph of one size in both engines.
struct Pair {
  std::string path;
  std::unique_ptr<Db> db;
  std::unique_ptr<SqliteGraph> sqlite;
  size_t nodes = 0;
};

DbOptions BenchDbOptions(bool sync) {
  DbOptions options;
  options.embedder = "hash";
  options.background_indexing = false;
  options.sync_on_commit = sync;
  return options;
}

// Both engines from now on syncing their commits or not.
void SetSync(Pair& p, bool sync) {
  p.db.reset();
  p.db = CheckValue(Db::Open(p.path, BenchDbOptions(sync)), "reopen " + p.path);
  p.sqlite->SetSync(sync);
}

Pair Open(const std::string& dir, size_t nodes, bool sync) {
  Pair p;
  p.path = FreshDir(dir, "vexfs-" + std::to_string(nodes));
  RemoveTree(p.path);
  p.db = CheckValue(Db::Create(p.path, BenchDbOptions(sync)), "create " + p.path);
  p.sqlite = std::make_unique<SqliteGraph>(dir + "/sqlite-" + std::to_string(nodes) + ".db", sync);
  p.nodes = nodes;
  return p;
}

struct BuildTimes {
  double vexfs_nodes = 0, vexfs_edges = 0, sqlite_nodes = 0, sqlite_edges = 0;
  size_t edges = 0;  // added
  bool cut = false;  // stopped by the time limit
};

// Adds p.nodes nodes, then edges_per_node edges each between random nodes, in
// batches of kBatch items (one transaction each) in both engines. With a
// limit (seconds, both engines together), stops at the first batch past it:
// p.nodes becomes the nodes added, and edges join only those.
BuildTimes Build(Pair& p, size_t edges_per_node, size_t kBatch = 1000, double limit_s = 0) {
  BuildTimes t;
  double began = NowSeconds();
  auto past_limit = [&] { return limit_s > 0 && NowSeconds() - began > limit_s; };
  for (size_t begin = 0; begin < p.nodes; begin += kBatch) {
    if (past_limit()) {
      p.nodes = begin;
      t.cut = true;
      break;
    }
    if (begin % 100000 < kBatch) Progress("  nodes " + std::to_string(begin) + "/" + std::to_string(p.nodes));
    GraphBatch batch;
    std::vector<BenchNode> rows;
    for (size_t i = begin; i < std::min(p.nodes, begin + kBatch); ++i) {
      rows.push_back(SqliteNode(NodeAt("n", i)));
      batch.AddNode(NodeAt("n", i));
    }
    double start = NowSeconds();
    CheckValue(p.db->graph().Apply(batch), "insert nodes");
    t.vexfs_nodes += NowSeconds() - start;
    start = NowSeconds();
    p.sqlite->Insert(rows, {});
    t.sqlite_nodes += NowSeconds() - start;
  }
  Rng rng(42);
  size_t edges = p.nodes * edges_per_node;
  for (size_t begin = 0; begin < edges; begin += kBatch) {
    if (past_limit()) {
      t.cut = true;
      break;
    }
    GraphBatch batch;
    std::vector<BenchEdge> rows;
    for (size_t i = begin; i < std::min(edges, begin + kBatch); ++i) {
      EdgeSpec e{.kind = kEdgeKinds[rng.Next() % 3], .from = NodeId("n", rng.Next() % p.nodes),
                 .to = NodeId("n", rng.Next() % p.nodes), .valid_from = 1};
      rows.push_back(SqliteEdge(e, "e" + std::to_string(i)));
      batch.Link(std::move(e));
    }
    double start = NowSeconds();
    CheckValue(p.db->graph().Apply(batch), "insert edges");
    t.vexfs_edges += NowSeconds() - start;
    start = NowSeconds();
    p.sqlite->Insert({}, rows);
    t.sqlite_edges += NowSeconds() - start;
    if (begin % 200000 < kBatch) Progress("  edges " + std::to_string(begin) + "/" + std::to_string(edges));
    t.edges = std::min(edges, begin + kBatch);
  }
  return t;
}

void PrintJson(const nlohmann::json& j) { std::cout << j.dump() << "\n"; }

void MeasureInserts(Pair& p, const Options& o, Table* table) {
  Progress("insert: " + std::to_string(p.nodes) + " nodes and " + std::to_string(p.nodes * o.edges_per_node) +
           " edges, batches of 1000");
  BuildTimes t = Build(p, o.edges_per_node, 1000, o.insert_limit_s);
  auto edges = static_cast<double>(t.edges);
  // Under a limit the rows say how far both engines got.
  std::string nodes_label = "insert nodes, batched (/s)", edges_label = "insert edges, batched (/s)";
  if (t.cut) {
    nodes_label = "insert nodes, batched, the first " + std::to_string(p.nodes) + " (/s)";
    edges_label = "insert edges, batched, the first " + std::to_string(t.edges) + " (/s)";
  }
  table->AddRow({nodes_label, Fixed(p.nodes / t.vexfs_nodes, 0), Fixed(p.nodes / t.sqlite_nodes, 0),
                 Ratio(t.sqlite_nodes, t.vexfs_nodes)});
  if (t.edges > 0) {
    table->AddRow({edges_label, Fixed(edges / t.vexfs_edges, 0), Fixed(edges / t.sqlite_edges, 0),
                   Ratio(t.sqlite_edges, t.vexfs_edges)});
  }
  uint64_t vexfs_bytes = DiskUsage(p.db->path());
  uint64_t sqlite_bytes = p.sqlite->Bytes();
  double items = static_cast<double>(p.nodes) + edges;
  table->AddRow({"bytes per node and edge", Fixed(vexfs_bytes / items, 0), Fixed(sqlite_bytes / items, 0),
                 Ratio(static_cast<double>(vexfs_bytes), static_cast<double>(sqlite_bytes))});
  PrintJson({{"bench", "graph_insert"}, {"nodes", p.nodes}, {"edges", edges}, {"cut_by_limit", t.cut},
             {"vexfs_nodes_per_s", p.nodes / t.vexfs_nodes}, {"sqlite_nodes_per_s", p.nodes / t.sqlite_nodes},
             {"vexfs_edges_per_s", edges / t.vexfs_edges}, {"sqlite_edges_per_s", edges / t.sqlite_edges},
             {"vexfs_bytes_per_item", vexfs_bytes / items}, {"sqlite_bytes_per_item", sqlite_bytes / items}});
}

// The floor under any durable commit on this disk: a 4 KiB write and its
// fdatasync, in ms (median). SQLite's WAL commit is one of these; LMDB's is two
// (its data pages, then its meta page), which bounds one write per call.
double MedianFlushMs(const std::string& dir, int reps) {
  std::string path = dir + "/flush-probe";
  int fd = ::open(path.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
  if (fd < 0) Check(Status::IOError("open " + path), "flush probe");
  std::string page(4096, 'x');
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    double start = NowSeconds();
    if (::pwrite(fd, page.data(), page.size(), 4096 * (i % 16)) != 4096 || ::fdatasync(fd) != 0) {
      Check(Status::IOError("write " + path), "flush probe");
    }
    ms.push_back(1e3 * (NowSeconds() - start));
  }
  ::close(fd);
  ::unlink(path.c_str());
  return Median(ms);
}

// Nodes, then edges to existing nodes, one durable transaction per call.
void MeasureOnePerCall(Pair& p, const Options& o, Table* table) {
  Progress("insert one per call: " + std::to_string(o.one_per_call) + " nodes, then as many edges");
  double vexfs = 0, sqlite = 0;
  Rng rng(7);
  for (size_t i = 0; i < o.one_per_call; ++i) {
    NodeSpec spec = NodeAt("c", i);
    GraphBatch batch;
    batch.AddNode(spec);
    double start = NowSeconds();
    CheckValue(p.db->graph().Apply(batch), "insert one node");
    vexfs += NowSeconds() - start;
    start = NowSeconds();
    p.sqlite->Insert({SqliteNode(spec)}, {});
    sqlite += NowSeconds() - start;
  }
  for (size_t i = 0; i < o.one_per_call; ++i) {
    EdgeSpec e{.kind = "mentions", .from = NodeId("c", i), .to = NodeId("n", rng.Next() % p.nodes), .valid_from = 1};
    BenchEdge row = SqliteEdge(e, "ce" + std::to_string(i));
    GraphBatch batch;
    batch.Link(e);
    double start = NowSeconds();
    CheckValue(p.db->graph().Apply(batch), "insert one edge");
    vexfs += NowSeconds() - start;
    start = NowSeconds();
    p.sqlite->Insert({}, {row});
    sqlite += NowSeconds() - start;
  }
  double calls = 2.0 * o.one_per_call;
  table->AddRow({"insert one per call (/s)", Fixed(calls / vexfs, 0), Fixed(calls / sqlite, 0), Ratio(sqlite, vexfs)});
  table->AddRow({"insert one per call (ms)", Fixed(1e3 * vexfs / calls, 3), Fixed(1e3 * sqlite / calls, 3), ""});
  double flush_ms = MedianFlushMs(p.path, 200);
  table->AddRow({"disk flush, 4 KiB + fdatasync (ms)", Fixed(flush_ms, 3), "", ""});
  PrintJson({{"bench", "graph_one_per_call"}, {"vexfs_calls_per_s", calls / vexfs}, {"sqlite_calls_per_s", calls / sqlite},
             {"flush_ms", flush_ms}});
}

void MeasureNeighbors(Pair& p, const Options& o, Table* table) {
  for (int depth : {1, 2}) {
    Progress("neighbours at depth " + std::to_string(depth) + ": " + std::to_string(o.queries) + " queries");
    std::vector<double> vexfs, sqlite;
    Rng rng(depth);
    for (size_t q = 0; q < o.queries; ++q) {
      GraphId start = NodeId("n", rng.Next() % p.nodes);
      double t0 = NowSeconds();
      auto hood = CheckValue(p.db->graph().Neighbors({.start = start, .depth = depth}), "neighbours");
      vexfs.push_back(NowSeconds() - t0);
      t0 = NowSeconds();
      size_t n = p.sqlite->Neighbors(std::string(start.AsBytes()), depth);
      sqlite.push_back(NowSeconds() - t0);
      if (n != hood.nodes.size()) Check(Status::Corruption("the engines disagree on a neighbourhood"), "neighbours");
    }
    std::string d = std::to_string(depth);
    table->AddRow({"neighbours depth " + d + " p50", Millis(Median(vexfs)), Millis(Median(sqlite)),
                   Ratio(Median(sqlite), Median(vexfs))});
    table->AddRow({"neighbours depth " + d + " p99", Millis(Percentile(vexfs, 0.99)),
                   Millis(Percentile(sqlite, 0.99)), Ratio(Percentile(sqlite, 0.99), Percentile(vexfs, 0.99))});
    PrintJson({{"bench", "graph_neighbors"}, {"depth", depth},
               {"vexfs_p50_ms", 1e3 * Median(vexfs)}, {"vexfs_p99_ms", 1e3 * Percentile(vexfs, 0.99)},
               {"sqlite_p50_ms", 1e3 * Median(sqlite)}, {"sqlite_p99_ms", 1e3 * Percentile(sqlite, 0.99)}});
  }
}

// Node texts made searchable (VexFS: the drain that indexes them; SQLite: an
// FTS5 table filled from the node table), then queries for one fact's words,
// the k = 10 best by BM25 in both. The first VexFS query lists the graph's
// nodes (later ones find that list cached until the next commit).
void MeasureSearch(Pair& p, const Options& o, Table* table) {
  Progress("search: indexing " + std::to_string(p.nodes) + " node texts");
  // The drain (a search that waits: passages, vectors, the lexical log), then
  // the builds searches use (the Xapian checkpoint, the HNSW graph).
  SearchRequest probe;
  probe.query = "fact";
  probe.mode = SearchMode::kLexical;
  double start = NowSeconds();
  CheckValue(p.db->Search(probe, /*wait=*/true), "drain node texts");
  double vexfs_drain = NowSeconds() - start;
  start = NowSeconds();
  Check(p.db->WaitIndexed(), "build the search structures");
  double vexfs_build = NowSeconds() - start;
  double vexfs_index = vexfs_drain + vexfs_build;
  start = NowSeconds();
  p.sqlite->BuildTextIndex();
  double sqlite_index = NowSeconds() - start;
  table->AddRow({"index node texts: drain (s)", Fixed(vexfs_drain, 2), Fixed(sqlite_index, 2),
                 Ratio(sqlite_index, vexfs_drain)});
  table->AddRow({"index node texts: HNSW and Xapian builds (s)", Fixed(vexfs_build, 2), "", ""});
  Progress("search: " + std::to_string(o.search_queries) + " queries");
  std::vector<double> vexfs, sqlite;
  double first = 0;
  size_t agree = 0;
  Rng rng(7);
  for (size_t q = 0; q < o.search_queries; ++q) {
    size_t i = rng.Next() % p.nodes;
    std::string number = std::to_string(i), service = std::to_string(i % 97);
    SearchRequest request;
    request.query = "fact " + number + " service " + service;
    request.mode = SearchMode::kLexical;
    double t0 = NowSeconds();
    SearchResult found = CheckValue(p.db->SearchGraph(request, {}), "graph search");
    (q == 0 ? first : vexfs.emplace_back()) = NowSeconds() - t0;
    t0 = NowSeconds();
    auto ids = p.sqlite->SearchText("fact OR " + number + " OR service OR " + service, 10);
    sqlite.push_back(NowSeconds() - t0);
    // Both should rank the fact with these words first.
    std::string want = NodeId("n", i).ToHex();
    bool vexfs_right = !found.hits.empty() && found.hits[0].document == want;
    bool sqlite_right = !ids.empty() && ids[0] == std::string(NodeId("n", i).AsBytes());
    agree += vexfs_right && sqlite_right;
  }
  table->AddRow({"graph search, first after a commit", Millis(first), "", ""});
  table->AddRow({"graph search p50", Millis(Median(vexfs)), Millis(Median(sqlite)),
                 Ratio(Median(sqlite), Median(vexfs))});
  table->AddRow({"graph search p99", Millis(Percentile(vexfs, 0.99)), Millis(Percentile(sqlite, 0.99)),
                 Ratio(Percentile(sqlite, 0.99), Percentile(vexfs, 0.99))});
  PrintJson({{"bench", "graph_search"}, {"nodes", p.nodes}, {"vexfs_index_s", vexfs_index},
             {"vexfs_drain_s", vexfs_drain}, {"vexfs_build_s", vexfs_build},
             {"sqlite_index_s", sqlite_index}, {"vexfs_first_ms", 1e3 * first},
             {"vexfs_p50_ms", 1e3 * Median(vexfs)}, {"vexfs_p99_ms", 1e3 * Percentile(vexfs, 0.99)},
             {"sqlite_p50_ms", 1e3 * Median(sqlite)}, {"sqlite_p99_ms", 1e3 * Percentile(sqlite, 0.99)},
             {"both_top_hit_right", agree}, {"queries", o.search_queries}});
}

// `changes` changes: half new facts linked to existing nodes, half
// invalidations of existing nodes, in one transaction of each engine.
void Change(Pair& p, size_t changes, size_t round) {
  GraphBatch batch;
  std::vector<BenchNode> nodes;
  std::vector<BenchEdge> edges;
  std::vector<std::string> invalidate;
  Rng rng(1000 + round);
  for (size_t i = 0; i < changes; ++i) {
    if (i % 2 == 0) {
      NodeSpec spec = NodeAt("r" + std::to_string(round) + "-", i);
      EdgeSpec e{.kind = "derived_from", .from = GraphIdForKey(spec.key), .to = NodeId("n", rng.Next() % p.nodes),
                 .valid_from = 1};
      nodes.push_back(SqliteNode(spec));
      edges.push_back(SqliteEdge(e, "r" + std::to_string(round) + "e" + std::to_string(i)));
      batch.AddNode(std::move(spec));
      batch.Link(std::move(e));
    } else {
      GraphId id = NodeId("n", rng.Next() % p.nodes);
      invalidate.emplace_back(id.AsBytes());
      batch.Invalidate(id, 2);
    }
  }
  CheckValue(p.db->graph().Apply(batch), "change");
  p.sqlite->Insert(nodes, edges, invalidate);
}

void MeasureVersioning(Pair& p, const Options& o, const std::string& dir, Table* table) {
  Progress("versioning at " + std::to_string(p.nodes) + " nodes: first snapshot");
  Store& store = p.db->store();
  double t0 = NowSeconds();
  CheckValue(store.CreateSnapshot("v0", "", {}), "first snapshot");
  double first = NowSeconds() - t0;
  std::string copy = dir + "/sqlite-copy-" + std::to_string(p.nodes);
  p.sqlite->CopyTo(copy + "-0");
  std::vector<double> snap, diff, sqlite_copy, sqlite_diff, objects, kib;
  for (int r = 1; r <= o.reps; ++r) {
    Change(p, o.changes, r);
    // What a snapshot writes, counted outside its time: the size-independent
    // measure of "flat" (its time also carries LMDB's page writes and syncs).
    StoreStats before = CheckValue(store.Stats(), "stats");
    t0 = NowSeconds();
    CheckValue(store.CreateSnapshot("v" + std::to_string(r), "", {}), "snapshot");
    snap.push_back(NowSeconds() - t0);
    StoreStats after = CheckValue(store.Stats(), "stats");
    objects.push_back(static_cast<double>(after.objects - before.objects));
    kib.push_back(static_cast<double>(after.object_bytes - before.object_bytes) / 1024);
    t0 = NowSeconds();
    auto d = CheckValue(p.db->graph().Diff("v" + std::to_string(r - 1), "v" + std::to_string(r)), "diff");
    diff.push_back(NowSeconds() - t0);
    if (d.changes.empty()) Check(Status::Corruption("a diff after changes is empty"), "diff");
    t0 = NowSeconds();
    p.sqlite->CopyTo(copy + "-" + std::to_string(r));
    sqlite_copy.push_back(NowSeconds() - t0);
    t0 = NowSeconds();
    p.sqlite->DiffWith(copy + "-" + std::to_string(r - 1));
    sqlite_diff.push_back(NowSeconds() - t0);
    RemoveTree(copy + "-" + std::to_string(r - 1));
  }
  RemoveTree(copy + "-" + std::to_string(o.reps));
  std::string n = std::to_string(p.nodes);
  table->AddRow({n + " nodes", Millis(Median(snap)), Fixed(Median(objects), 0), Fixed(Median(kib), 1),
                 Millis(Median(diff)), Millis(Median(sqlite_copy)), Millis(Median(sqlite_diff)), Millis(first)});
  PrintJson({{"bench", "graph_versioning"}, {"nodes", p.nodes}, {"changes", o.changes},
             {"vexfs_snapshot_ms", 1e3 * Median(snap)}, {"vexfs_snapshot_objects", Median(objects)},
             {"vexfs_snapshot_kib", Median(kib)}, {"vexfs_diff_ms", 1e3 * Median(diff)},
             {"vexfs_first_snapshot_ms", 1e3 * first},
             {"sqlite_copy_ms", 1e3 * Median(sqlite_copy)}, {"sqlite_diff_ms", 1e3 * Median(sqlite_diff)}});
}

int Run(const Options& o) {
  std::string dir = FreshDir(o.dir, "vexfs-graph-bench");
  Table ops({"operation", "VexFS", "SQLite", "SQLite time / VexFS time"});
  Table versions({"graph size", "snapshot", "objects written", "KiB written", "graph diff",
                  "SQLite copy (VACUUM INTO)", "SQLite diff (EXCEPT)", "first snapshot"});
  std::map<size_t, Pair> by_size;
  {
    Pair main = Open(dir, o.nodes, !o.no_sync);
    MeasureInserts(main, o, &ops);
    MeasureNeighbors(main, o, &ops);
    MeasureSearch(main, o, &ops);
    MeasureOnePerCall(main, o, &ops);
    by_size[main.nodes] = std::move(main);  // fewer than --nodes if the limit cut it
  }
  for (size_t size : o.sizes) {
    if (!by_size.count(size)) {
      // A bulk load: what is measured is a snapshot after it, not the load.
      Progress("building the " + std::to_string(size) + "-node graph (bulk, unsynced)");
      by_size[size] = Open(dir, size, false);
      Build(by_size[size], o.edges_per_node, o.bulk_batch);
      SetSync(by_size[size], !o.no_sync);
    }
    MeasureVersioning(by_size[size], o, dir, &versions);
    by_size.erase(size);
  }
  std::cout << ops.Text() << "\n" << versions.Text() << "\n";
  std::cout << ops.Markdown() << "\n" << versions.Markdown() << "\n";
  by_size.clear();
  RemoveTree(dir);
  return 0;
}

}  // namespace
}  // namespace vexfs::bench

int main(int argc, char** argv) {
  vexfs::bench::Options o;
  CLI::App app{"The memory graph against SQLite: inserts, neighbours, snapshot and diff"};
  app.add_option("--nodes", o.nodes, "Nodes of the main graph (edges: 3 per node)");
  app.add_option("--edges-per-node", o.edges_per_node, "Edges per node");
  app.add_option("--one-per-call", o.one_per_call, "Nodes, then edges, written one per call");
  app.add_option("--queries", o.queries, "Neighbour queries per depth");
  app.add_option("--search-queries", o.search_queries, "Graph searches (the first is timed apart)");
  app.add_option("--sizes", o.sizes, "Graph sizes (nodes) for snapshot and diff")->delimiter(',');
  app.add_option("--changes", o.changes, "Changes before each snapshot");
  app.add_option("--reps", o.reps, "Snapshots (and diffs) per size");
  app.add_option("--dir", o.dir, "Where the work directory is made (default /tmp)");
  app.add_option("--bulk-batch", o.bulk_batch,
                 "Items per transaction when loading the --sizes graphs (unsynced; default 10000)");
  app.add_option("--insert-limit", o.insert_limit_s,
                 "Seconds the main graph's synced inserts may take, both engines together (0: no limit); "
                 "past it the rest of the benchmark runs on the graph loaded so far");
  app.add_flag("--no-sync", o.no_sync,
               "Neither engine syncs its commits (VexFS sync_on_commit off, SQLite synchronous=OFF): "
               "what each costs besides the disk's flushes");
  CLI11_PARSE(app, argc, argv);
  return vexfs::bench::Run(o);
}
