// Retrieval quality of VexFS search on the CACM test collection, against plain
// Xapian BM25 with default parameters run in the same process over the same
// documents (the anchor every ratio is taken against).
//
// Each CACM document (title, abstract, keywords) becomes one file of a VexFS
// store; every judged query runs through Index::Search in each configuration
// (lexical with and without feedback, dense with each embedder, hybrid with each
// fusion method), and through the plain BM25 baseline. Reported: nDCG@10 (binary
// gains, log2 discount), MAP over the top 1000 and recall@100, averaged over the
// judged queries, plus each one's ratio to plain BM25.
//
// Parameters are the defaults of each component; nothing here is tuned to CACM.
//
//   search_quality_bench --data DIR --dir SCRATCH [--embedders hash,glove]
//                        [--json FILE]
#include <xapian.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <CLI/CLI.hpp>

#include "bench_util.h"
#include "vexfs/index.h"
#include "vexfs/store.h"

namespace vexfs::bench {
namespace {

constexpr size_t kRetrieved = 1000;

struct Collection {
  std::map<int, std::string> docs;          // id -> text
  std::map<int, std::string> queries;       // id -> text (judged ones only)
  std::map<int, std::set<int>> relevant;    // query -> relevant doc ids
};

// SMART-format records: ".I n" starts one, ".X" style field markers start fields.
std::map<int, std::map<char, std::string>> ReadSmart(const std::string& path) {
  std::ifstream in(path);
  if (!in) DieErrno("open " + path);
  std::map<int, std::map<char, std::string>> out;
  int id = -1;
  char field = 0;
  std::string line;
  while (std::getline(in, line)) {
    if (line.size() >= 2 && line[0] == '.' && (line.size() == 2 || line[2] == ' ')) {
      if (line[1] == 'I') {
        id = std::stoi(line.substr(3));
        field = 0;
      } else {
        field = line[1];
      }
      continue;
    }
    if (id >= 0 && field != 0) out[id][field] += line + "\n";
  }
  return out;
}

Collection LoadCacm(const std::string& dir) {
  Collection c;
  for (auto& [id, fields] : ReadSmart(dir + "/cacm.all")) {
    c.docs[id] = fields['T'] + "\n" + fields['W'] + "\n" + fields['K'];
  }
  std::ifstream qrels(dir + "/qrels.text");
  if (!qrels) DieErrno("open qrels.text");
  int q = 0, d = 0, a = 0, b = 0;
  while (qrels >> q >> d >> a >> b) c.relevant[q].insert(d);
  for (auto& [id, fields] : ReadSmart(dir + "/query.text")) {
    if (c.relevant.count(id)) c.queries[id] = fields['W'];
  }
  return c;
}

struct Metrics {
  double ndcg10 = 0, map = 0, recall100 = 0;
  double p50_ms = 0, p99_ms = 0;  // per-query search time (k = 1000, no snippets)
};

Metrics Score(const std::vector<int>& ranking, const std::set<int>& relevant) {
  Metrics m;
  double dcg = 0, idcg = 0;
  for (size_t i = 0; i < std::min<size_t>(10, ranking.size()); ++i) {
    if (relevant.count(ranking[i])) dcg += 1.0 / std::log2(double(i) + 2);
  }
  for (size_t i = 0; i < std::min<size_t>(10, relevant.size()); ++i) {
    idcg += 1.0 / std::log2(double(i) + 2);
  }
  m.ndcg10 = idcg > 0 ? dcg / idcg : 0;
  double hits = 0, precision_sum = 0;
  size_t in_top100 = 0;
  for (size_t i = 0; i < ranking.size(); ++i) {
    if (!relevant.count(ranking[i])) continue;
    hits += 1;
    precision_sum += hits / double(i + 1);
    if (i < 100) ++in_top100;
  }
  m.map = precision_sum / double(relevant.size());
  m.recall100 = double(in_top100) / double(relevant.size());
  return m;
}

// Averages over the judged queries of `run(query text)`, and its time per query
// over `reps` passes (the first pass warms caches and is not timed).
template <typename Run>
Metrics Evaluate(const Collection& c, Run run, int reps) {
  Metrics sum;
  std::vector<double> times;
  for (int rep = 0; rep <= reps; ++rep) {
    for (const auto& [id, text] : c.queries) {
      double start = NowSeconds();
      std::vector<int> ranking = run(text);
      if (rep > 0) times.push_back((NowSeconds() - start) * 1000);
      if (rep != 0) continue;
      Metrics m = Score(ranking, c.relevant.at(id));
      sum.ndcg10 += m.ndcg10;
      sum.map += m.map;
      sum.recall100 += m.recall100;
    }
  }
  double n = double(c.queries.size());
  return {sum.ndcg10 / n, sum.map / n, sum.recall100 / n, Percentile(times, 0.5),
          Percentile(times, 0.99)};
}

// The anchor: Xapian's documented defaults (TermGenerator and QueryParser with
// the English stemmer, BM25Weight()), one Xapian document per CACM document.
class PlainBm25 {
 public:
  explicit PlainBm25(const Collection& c) : db_(std::string(), Xapian::DB_BACKEND_INMEMORY) {
    Xapian::TermGenerator gen;
    gen.set_stemmer(Xapian::Stem("english"));
    for (const auto& [id, text] : c.docs) {
      Xapian::Document doc;
      gen.set_document(doc);
      gen.index_text(text);
      db_.replace_document(static_cast<Xapian::docid>(id), doc);
    }
    db_.commit();
  }
  std::vector<int> Run(const std::string& text) {
    Xapian::QueryParser parser;
    parser.set_stemmer(Xapian::Stem("english"));
    parser.set_database(db_);
    Xapian::Enquire enquire(db_);
    enquire.set_query(parser.parse_query(text));
    std::vector<int> out;
    Xapian::MSet mset = enquire.get_mset(0, kRetrieved);
    for (auto it = mset.begin(); it != mset.end(); ++it) out.push_back(static_cast<int>(*it));
    return out;
  }

 private:
  Xapian::WritableDatabase db_;
};

// A VexFS store holding the collection, indexed with `embedder`.
struct IndexedStore {
  std::unique_ptr<Store> store;
  std::unique_ptr<Index> index;
};

IndexedStore BuildStore(const Collection& c, const std::string& path, const std::string& embedder) {
  std::filesystem::remove_all(path);
  IndexedStore s;
  StoreOptions options;
  options.sync_on_commit = false;  // quality, not durability, is measured here
  s.store = CheckValue(Store::Create(path, options), "create store");
  Check(Index::SetEmbedder(s.store.get(), embedder), "choose embedder " + embedder);
  auto tree = CheckValue(s.store->Tree(), "open tree");
  Check(tree->Edit([&](TreeEditor& ed) -> Status {
          for (const auto& [id, text] : c.docs) {
            VEXFS_RETURN_IF_ERROR(ed.PutFile("docs/" + std::to_string(id), text, {}).status());
          }
          return Status::Ok();
        }),
        "write documents");
  s.index = CheckValue(Index::Open(s.store.get()), "open index");
  double start = NowSeconds();
  Check(s.index->Wait(), "index");
  Progress("indexed " + std::to_string(c.docs.size()) + " documents with " + embedder + " in " +
           std::to_string(NowSeconds() - start) + " s");
  return s;
}

std::vector<int> RunVexfs(Index& index, const std::string& text, SearchMode mode,
                          FusionMethod fusion, bool feedback) {
  SearchRequest r;
  r.query = text;
  r.mode = mode;
  r.fusion = fusion;
  r.feedback = feedback;
  r.k = kRetrieved;
  r.snippets = false;
  SearchResult res = CheckValue(index.Search(r), "search");
  std::vector<int> out;
  for (const SearchHit& h : res.hits) out.push_back(std::stoi(h.path.substr(5)));
  return out;
}

struct Row {
  std::string name;
  Metrics m;
};

void Print(const std::vector<Row>& rows, const Metrics& anchor) {
  std::printf("%-34s %8s %8s %8s %8s %8s %8s %8s %8s\n", "configuration", "nDCG@10", "ratio",
              "MAP", "ratio", "R@100", "ratio", "p50 ms", "p99 ms");
  for (const Row& r : rows) {
    std::printf("%-34s %8.4f %8.3f %8.4f %8.3f %8.4f %8.3f %8.2f %8.2f\n", r.name.c_str(),
                r.m.ndcg10, r.m.ndcg10 / anchor.ndcg10, r.m.map, r.m.map / anchor.map,
                r.m.recall100, r.m.recall100 / anchor.recall100, r.m.p50_ms, r.m.p99_ms);
  }
}

// The table for docs/BENCHMARKS.md.
std::string Markdown(const std::vector<Row>& rows, const Metrics& anchor, const Collection& c) {
  char line[512];
  std::string out = "### CACM (" + std::to_string(c.docs.size()) + " documents, " +
                    std::to_string(c.queries.size()) + " judged queries, k = 1000)\n\n";
  out += "| configuration | nDCG@10 | / BM25 | MAP | / BM25 | recall@100 | / BM25 | "
         "query p50 ms | p99 ms |\n|---|---|---|---|---|---|---|---|---|\n";
  for (const Row& r : rows) {
    std::snprintf(line, sizeof(line),
                  "| %s | %.4f | %.3f | %.4f | %.3f | %.4f | %.3f | %.2f | %.2f |\n",
                  r.name.c_str(), r.m.ndcg10, r.m.ndcg10 / anchor.ndcg10, r.m.map,
                  r.m.map / anchor.map, r.m.recall100, r.m.recall100 / anchor.recall100,
                  r.m.p50_ms, r.m.p99_ms);
    out += line;
  }
  return out + "\n";
}

int Main(int argc, char** argv) {
  CLI::App app{"VexFS retrieval quality on CACM against plain Xapian BM25"};
  std::string data = "../shared/data/cacm", dir = "/tmp", json_path, markdown;
  std::string embedders = "hash,glove";
  int reps = 3;
  bool keep = false;
  app.add_option("--data", data, "CACM directory (cacm.all, query.text, qrels.text)");
  app.add_option("--dir", dir, "Where the scratch directory for the stores is made");
  app.add_option("--embedders", embedders, "Comma-separated embedder specs to compare");
  app.add_option("--json", json_path, "Write the results here as JSON");
  app.add_option("--markdown", markdown, "Write the table here (docs/BENCHMARKS.md)");
  app.add_option("--reps", reps, "Timed passes over the queries (medians of all)");
  app.add_flag("--keep", keep, "Leave the stores in --dir");
  CLI11_PARSE(app, argc, argv);
  // A directory of its own, which the run removes: --dir may hold other things.
  dir = (std::filesystem::path(dir) / "vexfs-quality-bench").string();
  Collection c = LoadCacm(data);
  Progress("CACM: " + std::to_string(c.docs.size()) + " documents, " +
           std::to_string(c.queries.size()) + " judged queries");
  PlainBm25 plain(c);
  std::vector<Row> rows;
  rows.push_back({"plain Xapian BM25 (anchor)",
                  Evaluate(c, [&](const std::string& q) { return plain.Run(q); }, reps)});
  std::stringstream list(embedders);
  std::string spec;
  bool first = true;
  while (std::getline(list, spec, ',')) {
    IndexedStore s = BuildStore(c, dir + "/" + spec.substr(0, spec.find(':')), spec);
    auto run = [&](SearchMode mode, FusionMethod fusion, bool feedback) {
      return Evaluate(
          c, [&](const std::string& q) { return RunVexfs(*s.index, q, mode, fusion, feedback); },
          reps);
    };
    if (first) {  // the lexical side does not depend on the embedder
      rows.push_back({"lexical", run(SearchMode::kLexical, FusionMethod::kRrf, false)});
      rows.push_back({"lexical + feedback", run(SearchMode::kLexical, FusionMethod::kRrf, true)});
      first = false;
    }
    rows.push_back({"dense " + spec, run(SearchMode::kDense, FusionMethod::kRrf, false)});
    rows.push_back({"hybrid rrf " + spec, run(SearchMode::kHybrid, FusionMethod::kRrf, false)});
    rows.push_back({"hybrid mix " + spec, run(SearchMode::kHybrid, FusionMethod::kScoreMix, false)});
    rows.push_back({"hybrid rrf + feedback " + spec,
                    run(SearchMode::kHybrid, FusionMethod::kRrf, true)});
  }
  Print(rows, rows.front().m);
  nlohmann::json out = nlohmann::json::array();
  for (const Row& r : rows) {
    out.push_back({{"configuration", r.name}, {"ndcg10", r.m.ndcg10}, {"map", r.m.map},
                   {"recall100", r.m.recall100}, {"p50_ms", r.m.p50_ms}, {"p99_ms", r.m.p99_ms}});
  }
  // One JSON line for bench/run_benchmarks.sh's results.jsonl.
  std::printf("%s\n", nlohmann::json({{"bench", "quality"}, {"rows", out}}).dump().c_str());
  if (!json_path.empty()) std::ofstream(json_path) << out.dump(2) << "\n";
  if (!markdown.empty()) std::ofstream(markdown) << Markdown(rows, rows.front().m, c);
  if (!keep) std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace
}  // namespace vexfs::bench

int main(int argc, char** argv) { return vexfs::bench::Main(argc, argv); }
