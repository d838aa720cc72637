// Search at scale: ingest rate through each embedder with and without the lexical
// index, and warm query latency of lexical, dense and hybrid search, at N passages.
//
// The text is synthetic with a real vocabulary: words are drawn from the unigram
// distribution of the CACM abstracts (shared/data/cacm), so term frequencies
// follow the Zipf-like law of English technical prose rather than a uniform pool;
// a file holds four passages of about 1100 bytes. Queries are five consecutive
// words taken from random files. Everything goes through the public API.
//
// Baselines side by side in one run: the `hash` embedder without the lexical
// index (how VexFS indexed before hybrid search) against `hash` and `glove` with
// it; dense-only search as the anchor for lexical and hybrid latency.
//
//   search_scale_bench --data DIR --passages N [--queries Q] [--reps R] [--dir D]
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <CLI/CLI.hpp>

#include "bench_util.h"
#include "vexfs/index.h"
#include "vexfs/store.h"

namespace vexfs::bench {
namespace {

constexpr size_t kPassagesPerFile = 4;
constexpr size_t kPassageBytes = 1100;
constexpr size_t kFilesPerCommit = 500;

// Words of the CACM abstracts with their counts, as a sampling table.
class Vocabulary {
 public:
  explicit Vocabulary(const std::string& cacm_all) {
    std::ifstream in(cacm_all);
    if (!in) DieErrno("open " + cacm_all);
    std::map<std::string, uint64_t> counts;
    std::string word;
    while (in >> word) {
      word.erase(std::remove_if(word.begin(), word.end(),
                                [](char c) { return !std::isalpha(static_cast<unsigned char>(c)); }),
                 word.end());
      if (word.size() < 2) continue;
      std::transform(word.begin(), word.end(), word.begin(),
                     [](char c) { return static_cast<char>(std::tolower(c)); });
      ++counts[word];
    }
    uint64_t total = 0;
    for (auto& [w, n] : counts) {
      words_.push_back(w);
      total += n;
      cumulative_.push_back(total);
    }
  }
  const std::string& Sample(Rng& rng) const {
    uint64_t x = rng.Next() % cumulative_.back();
    size_t i = std::upper_bound(cumulative_.begin(), cumulative_.end(), x) - cumulative_.begin();
    return words_[i];
  }
  size_t size() const { return words_.size(); }

 private:
  std::vector<std::string> words_;
  std::vector<uint64_t> cumulative_;
};

std::string Passage(const Vocabulary& vocab, Rng& rng) {
  std::string out;
  size_t since_stop = 0;
  while (out.size() < kPassageBytes) {
    out += vocab.Sample(rng);
    out += ++since_stop % 14 == 0 ? ".\n" : " ";
  }
  return out + "\n\n";
}

std::string FileText(const Vocabulary& vocab, uint64_t seed) {
  Rng rng(seed);
  std::string text;
  for (size_t p = 0; p < kPassagesPerFile; ++p) text += Passage(vocab, rng);
  return text;
}

struct Ingest {
  double seconds = 0;        // Index::Wait: passages split, embedded, logged
  double build_seconds = 0;  // then the Xapian files (a first lexical search)
  double graph_seconds = 0;  // then Index::CatchUp: the HNSW graph (and catalogs)
  uint64_t files = 0, passages = 0, store_bytes = 0;
};

uint64_t DirBytes(const std::string& path) {
  uint64_t n = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::recursive_directory_iterator(path, ec)) {
    if (e.is_regular_file(ec)) n += e.file_size(ec);
  }
  return n;
}

// Writes the files (not timed) and times indexing them all.
Ingest BuildAndIndex(const Vocabulary& vocab, const std::string& path, const std::string& embedder,
                     bool lexical, size_t files, std::unique_ptr<Store>* store_out,
                     std::unique_ptr<Index>* index_out) {
  std::filesystem::remove_all(path);
  StoreOptions options;
  options.sync_on_commit = false;
  auto store = CheckValue(Store::Create(path, options), "create store");
  Check(Index::SetEmbedder(store.get(), embedder), "embedder");
  auto tree = CheckValue(store->Tree(), "tree");
  for (size_t from = 0; from < files; from += kFilesPerCommit) {
    Check(tree->Edit([&](TreeEditor& ed) -> Status {
            for (size_t i = from; i < std::min(files, from + kFilesPerCommit); ++i) {
              std::string p = "d" + std::to_string(i % 100) + "/f" + std::to_string(i) + ".md";
              VEXFS_RETURN_IF_ERROR(ed.PutFile(p, FileText(vocab, i), {}).status());
            }
            return Status::Ok();
          }),
          "write");
  }
  IndexOptions io;
  io.lexical = lexical;
  auto index = CheckValue(Index::Open(store.get(), io), "open index");
  double start = NowSeconds();
  Check(index->Wait(), "index");
  Ingest out;
  out.seconds = NowSeconds() - start;
  if (lexical) {
    // Searchable means searchable by words too: the Xapian checkpoint is part of
    // the cost of ingesting. Timed on its own (a first lexical search writes it,
    // as it did before graphs left the query path), so the rate compares.
    start = NowSeconds();
    SearchRequest r;
    r.query = "memory";
    r.mode = SearchMode::kLexical;
    CheckValue(index->Search(r), "first lexical search");
    out.build_seconds = NowSeconds() - start;
  }
  // Then what `vexfs index wait` and the background indexer also do: the HNSW
  // graph (which the first dense search used to build) and the catalogs.
  start = NowSeconds();
  Check(index->CatchUp(), "build");
  out.graph_seconds = NowSeconds() - start;
  Check(store->Sync(), "sync");
  out.files = files;
  out.passages = files * kPassagesPerFile;
  out.store_bytes = DirBytes(path);
  *store_out = std::move(store);
  *index_out = std::move(index);
  return out;
}

constexpr int kFirstReps = 5;  // new Indexes whose first query is timed

struct Latency {
  double first_ms = 0;  // the first query after the build
  double p50_ms = 0, p99_ms = 0;
};

// The first query of `mode` in a new Index, in ms: one that has caught up
// (loaded the graph and Xapian checkpoints and built the catalogs, as a Db's
// background indexer does when it opens) or not (it loads the checkpoints, as
// a new CLI process does).
double FirstInNewIndex(Store* store, const std::string& query, SearchMode mode,
                       bool caught_up) {
  auto index = CheckValue(Index::Open(store), "open index");
  if (caught_up) Check(index->CatchUp(), "catch up");
  SearchRequest r;
  r.query = query;
  r.mode = mode;
  double start = NowSeconds();
  CheckValue(index->Search(r), "search");
  return (NowSeconds() - start) * 1000;
}

// Through the CLI: `index wait` on the built store, then the first search of each
// mode and the median of `reps` more (each a new process).
struct CliLatency {
  double wait_ms = 0;
  std::map<std::string, Latency> by_mode;
};

CliLatency MeasureCli(const std::string& cli, const std::string& store,
                      const std::vector<std::string>& queries, int reps) {
  CliLatency out;
  out.wait_ms = TimeProcess({cli, "--store", store, "index", "wait"}) * 1000;
  for (const char* mode : {"dense", "hybrid"}) {
    auto search = [&](const std::string& q) {
      return TimeProcess({cli, "--store", store, "search", "--no-wait", "--mode", mode, "-k",
                          "10", q}) *
             1000;
    };
    Latency l;
    l.first_ms = search(queries.front());
    std::vector<double> times;
    for (int i = 0; i < reps; ++i) times.push_back(search(queries[1 + i % (queries.size() - 1)]));
    l.p50_ms = Percentile(times, 0.5);
    l.p99_ms = Percentile(times, 0.99);
    out.by_mode[mode] = l;
  }
  return out;
}

Latency Measure(Index& index, const std::vector<std::string>& queries, SearchMode mode, size_t k,
                int reps) {
  auto run = [&](const std::string& q) {
    SearchRequest r;
    r.query = q;
    r.mode = mode;
    r.k = k;
    r.snippets = k <= 10;
    double start = NowSeconds();
    CheckValue(index.Search(r), "search");
    return (NowSeconds() - start) * 1000;
  };
  Latency out;
  out.first_ms = run(queries.front());
  std::vector<double> times;
  for (int rep = 0; rep < reps; ++rep) {
    for (const std::string& q : queries) times.push_back(run(q));
  }
  out.p50_ms = Percentile(times, 0.5);
  out.p99_ms = Percentile(times, 0.99);
  return out;
}

// Bytes of the Xapian checkpoint files of the store at `store`.
uint64_t XapianBytes(const std::string& store) {
  uint64_t n = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(store + "/index", ec)) {
    if (e.path().filename().string().starts_with("lexical-")) n += DirBytes(e.path());
  }
  return n;
}

int Main(int argc, char** argv) {
  CLI::App app{"VexFS search at scale: ingest and query latency by mode"};
  std::string data = "../shared/data/cacm", dir = "/tmp/vexfs-scale", markdown;
  size_t passages = 100000, nqueries = 200;
  int reps = 3;
  bool keep = false;
  std::vector<std::string> only = {"before", "hash-lexical", "default"};
  app.add_option("--data", data, "CACM directory (its words make the vocabulary)");
  app.add_option("--configs", only, "Indexings to run (before, hash-lexical, default); "
                                    "the queries run on the last")
      ->delimiter(',')
      ->check(CLI::IsMember({"before", "hash-lexical", "default"}));
  app.add_option("--dir", dir, "Scratch directory");
  app.add_option("--passages", passages, "Passages to index (4 per file)");
  app.add_option("--queries", nqueries, "Queries per mode");
  app.add_option("--reps", reps, "Timed passes over the queries");
  app.add_option("--markdown", markdown, "Write the tables here");
  app.add_flag("--keep", keep, "Leave the stores in --dir");
  std::string cli;
  int cli_reps = 10;
  app.add_option("--cli", cli, "vexfs binary: also time the first searches through the CLI");
  app.add_option("--cli-reps", cli_reps, "CLI searches per mode after the first");
  CLI11_PARSE(app, argc, argv);
  Vocabulary vocab(data + "/cacm.all");
  size_t files = passages / kPassagesPerFile;
  Progress("vocabulary of " + std::to_string(vocab.size()) + " words; " + std::to_string(files) +
           " files of " + std::to_string(kPassagesPerFile) + " passages");
  struct Config {
    std::string key, name, embedder;
    bool lexical;
  };
  const Config configs[] = {{"before", "hash, no lexical index (before)", "hash", false},
                            {"hash-lexical", "hash + lexical", "hash", true},
                            {"default", "glove + lexical (default)", "glove", true}};
  std::vector<std::pair<std::string, Ingest>> ingests;
  std::map<std::string, Ingest> by_key;
  std::unique_ptr<Store> store;
  std::unique_ptr<Index> index;
  std::vector<std::string> made;  // the stores this run writes, and all it removes
  for (const Config& c : configs) {
    if (std::find(only.begin(), only.end(), c.key) == only.end()) continue;
    index.reset();
    store.reset();
    Progress("ingest: " + c.name);
    made.push_back(dir + "/" + c.embedder + (c.lexical ? "-lex" : ""));
    ingests.push_back(
        {c.name, BuildAndIndex(vocab, made.back(), c.embedder, c.lexical, files, &store, &index)});
    by_key[c.key] = ingests.back().second;
  }
  // Queries: five consecutive words of random files of the last (default) store.
  std::vector<std::string> queries;
  Rng rng(42);
  for (size_t q = 0; q < nqueries; ++q) {
    std::istringstream words(FileText(vocab, rng.Next() % files));
    std::vector<std::string> all{std::istream_iterator<std::string>(words), {}};
    size_t at = rng.Next() % (all.size() - 5);
    std::string text;
    for (size_t i = at; i < at + 5; ++i) text += (text.empty() ? "" : " ") + all[i];
    queries.push_back(text);
  }
  // Each side alone at k = 10, and at the depth a hybrid query asks of it.
  std::map<std::string, Latency> latency;
  for (SearchMode mode : {SearchMode::kDense, SearchMode::kLexical, SearchMode::kHybrid}) {
    Progress(std::string("queries: ") + SearchModeName(mode));
    latency[SearchModeName(mode)] = Measure(*index, queries, mode, 10, reps);
  }
  const std::string kDenseDeep = "dense, k = 100 (a hybrid side)";
  const std::string kLexicalDeep = "lexical, k = 100 (a hybrid side)";
  latency[kDenseDeep] = Measure(*index, queries, SearchMode::kDense, 100, reps);
  latency[kLexicalDeep] = Measure(*index, queries, SearchMode::kLexical, 100, reps);
  Progress("first queries in a new index");
  std::map<std::string, double> first_new, first_caught_up;
  for (SearchMode mode : {SearchMode::kDense, SearchMode::kLexical, SearchMode::kHybrid}) {
    first_new[SearchModeName(mode)] = FirstInNewIndex(store.get(), queries[1], mode, false);
    std::vector<double> caught_up;
    for (int i = 0; i < kFirstReps; ++i) {
      caught_up.push_back(FirstInNewIndex(store.get(), queries[2], mode, true));
    }
    first_caught_up[SearchModeName(mode)] = Percentile(caught_up, 0.5);
  }
  uint64_t lexical_files = XapianBytes(dir + "/glove-lex");
  // Tables.
  std::ostringstream md;
  char line[512];
  md << "### " << passages << " passages (" << files << " files, CACM vocabulary)\n\n";
  md << "| indexing | index wait s | Xapian build s | files/s | passages/s | / before | "
        "HNSW build s | passages/s with HNSW | store bytes per passage |\n"
        "|---|---|---|---|---|---|---|---|---|\n";
  double before = by_key.count("before") ? by_key["before"].passages / by_key["before"].seconds
                                         : 0;
  for (const auto& [name, in] : ingests) {
    double total = in.seconds + in.build_seconds;
    double rate = in.passages / total;
    std::string ratio = before > 0 ? Fixed(rate / before, 2) : "-";
    double with_graph = in.passages / (total + in.graph_seconds);
    std::snprintf(line, sizeof(line),
                  "| %s | %.1f | %.1f | %.0f | %.0f | %s | %.1f | %.0f | %.0f |\n", name.c_str(),
                  in.seconds, in.build_seconds, in.files / total, rate, ratio.c_str(),
                  in.graph_seconds, with_graph, double(in.store_bytes) / double(in.passages));
    md << line;
  }
  md << "\n| query (k = 10 unless shown) | first ms | first after catch-up ms (median of "
     << kFirstReps << ") | / p50 | first in a new index ms | p50 ms | p99 ms | p50 / dense |\n"
        "|---|---|---|---|---|---|---|---|\n";
  double dense_p50 = latency["dense"].p50_ms;
  for (const std::string& mode : {std::string("dense"), std::string("lexical"),
                                  std::string("hybrid"), kDenseDeep, kLexicalDeep}) {
    const Latency& l = latency[mode];
    std::string fresh = first_new.count(mode) ? Fixed(first_new[mode], 1) : "-";
    std::string caught = first_caught_up.count(mode) ? Fixed(first_caught_up[mode], 2) : "-";
    std::string ratio =
        first_caught_up.count(mode) ? Fixed(first_caught_up[mode] / l.p50_ms, 2) : "-";
    std::snprintf(line, sizeof(line), "| %s | %.2f | %s | %s | %s | %.2f | %.2f | %.2f |\n",
                  mode.c_str(), l.first_ms, caught.c_str(), ratio.c_str(), fresh.c_str(),
                  l.p50_ms, l.p99_ms, l.p50_ms / dense_p50);
    md << line;
  }
  // The lexical log's share of LMDB: hash with it, less hash without, less the
  // Xapian files (which live under the store's index/ directory).
  if (by_key.count("before") && by_key.count("hash-lexical") && by_key.count("default")) {
    double lex_store = double(by_key["hash-lexical"].store_bytes) -
                       double(XapianBytes(dir + "/hash-lex")) -
                       double(by_key["before"].store_bytes);
    std::snprintf(line, sizeof(line),
                  "\nLexical index: %.0f bytes per passage in LMDB (the passage text, zstd, "
                  "and its records) and %.0f bytes per passage of Xapian checkpoint files "
                  "(positions included, for phrases).\n\n",
                  lex_store / double(passages), double(lexical_files) / double(passages));
    md << line;
  }
  nlohmann::json j = {{"bench", "scale"}, {"passages", passages}};
  if (!cli.empty() && by_key.count("default")) {
    index.reset();  // the CLI opens the store itself
    store.reset();
    Progress("queries through the CLI");
    CliLatency c = MeasureCli(cli, dir + "/glove-lex", queries, cli_reps);
    std::snprintf(line, sizeof(line),
                  "\nThrough the CLI (each search a new process, `--no-wait`), after `vexfs "
                  "index wait` (%.0f ms, nothing left to do):\n\n"
                  "| query | first ms | p50 ms | first / p50 |\n|---|---|---|---|\n",
                  c.wait_ms);
    md << line;
    for (const auto& [mode, l] : c.by_mode) {
      std::snprintf(line, sizeof(line), "| %s | %.0f | %.0f | %.2f |\n", mode.c_str(),
                    l.first_ms, l.p50_ms, l.first_ms / l.p50_ms);
      md << line;
      j["cli_first_ms"][mode] = l.first_ms;
      j["cli_p50_ms"][mode] = l.p50_ms;
    }
  }
  std::printf("%s", md.str().c_str());
  if (!markdown.empty()) std::ofstream(markdown) << md.str();
  for (const auto& [name, in] : ingests) {
    j["ingest_passages_per_s"][name] = in.passages / (in.seconds + in.build_seconds);  // as before
  }
  for (const auto& [mode, l] : latency) {
    j["p50_ms"][mode] = l.p50_ms;
    j["first_ms"][mode] = l.first_ms;
  }
  for (const auto& [mode, ms] : first_caught_up) j["first_after_catch_up_ms"][mode] = ms;
  for (const auto& [name, in] : ingests) j["graph_build_s"][name] = in.graph_seconds;
  std::printf("%s\n", j.dump().c_str());
  index.reset();
  store.reset();
  // Only what this run made: --dir may hold other things (a log, the tables).
  if (!keep) {
    for (const std::string& path : made) std::filesystem::remove_all(path);
    std::error_code ec;
    std::filesystem::remove(dir, ec);  // only if nothing else is left in it
  }
  return 0;
}

}  // namespace
}  // namespace vexfs::bench

int main(int argc, char** argv) { return vexfs::bench::Main(argc, argv); }
