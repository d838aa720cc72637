// Search benchmark: VexFS search against raw FAISS HNSW with the same parameters
// and against exact search, on Fashion-MNIST and clustered synthetic vectors;
// filtered search against "search, then drop what is not visible"; ingest of
// agent-supplied vectors and of text files through the hash embedder; memory per
// vector. Everything measured side by side in one process.
#include <faiss/IndexFlat.h>
#include <faiss/IndexHNSW.h>
#include <faiss/index_io.h>
#include <omp.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "bench_util.h"
#include "search_data.h"
#include "vexfs/index.h"
#include "vexfs/store.h"

namespace vexfs::bench {
namespace {

constexpr size_t kK = 10;
constexpr char kModel[] = "bench";

struct Options {
  std::string fashion;   // dataset directory, or ""
  size_t synthetic = 0;  // number of clustered vectors, or 0
  uint32_t dim = 384;
  size_t queries = 200;
  size_t exact_queries = 50;
  std::vector<int> efs = {16, 32, 64, 128, 256};
  int reps = 3;
  bool filtered = false;
  size_t ingest_files = 0;  // hash-embedder ingest of this many text files, or 0
  std::string dir = "/tmp/vexfs-bench";
  std::string markdown;
  bool keep = false;
};

uint64_t RssBytes() {
  std::ifstream in("/proc/self/status");
  std::string key;
  while (in >> key) {
    if (key == "VmRSS:") {
      uint64_t kb = 0;
      in >> kb;
      return kb * 1024;
    }
  }
  return 0;
}

// Single-query searches run on one thread on both sides (VexFS does this
// itself): FAISS's OpenMP region only adds barrier waits for one query.
class SingleThreaded {
 public:
  SingleThreaded() : saved_(omp_get_max_threads()) { omp_set_num_threads(1); }
  ~SingleThreaded() { omp_set_num_threads(saved_); }

 private:
  int saved_;
};

// A store holding the set as agent-supplied vectors, one byte range per vector.
struct LoadedStore {
  std::unique_ptr<Store> store;
  std::unique_ptr<Index> index;      // VexFS's own choice of exact scan or HNSW
  std::unique_ptr<Index> ann_index;  // always HNSW, for the comparison with raw FAISS
  double ingest_seconds = 0;
  uint64_t data_mdb_bytes = 0;
};

void PutFiles(Store& store, size_t files) {
  auto tree = CheckValue(store.Tree(), "open tree");
  for (size_t start = 0; start < files; start += 1000) {
    Check(tree->Edit([&](TreeEditor& ed) -> Status {
      for (size_t f = start; f < std::min(files, start + 1000); ++f) {
        std::string body(kVectorsPerFile, ' ');
        std::string tag = std::to_string(f);
        body.replace(0, tag.size(), tag);
        VEXFS_RETURN_IF_ERROR(ed.PutFile(FilePath(f, files), body, {}).status());
      }
      return Status::Ok();
    }), "put files");
  }
}

LoadedStore LoadIntoStore(const VectorSet& set, const std::string& path) {
  LoadedStore out;
  out.store = CheckValue(Store::Create(path), "create store");
  size_t files = (set.n() + kVectorsPerFile - 1) / kVectorsPerFile;
  PutFiles(*out.store, files);
  out.index = CheckValue(Index::Open(out.store.get()), "open index");
  double start = NowSeconds();
  constexpr size_t kBatch = 10000;
  for (size_t from = 0; from < set.n(); from += kBatch) {
    std::vector<SuppliedVector> batch;
    for (size_t i = from; i < std::min(set.n(), from + kBatch); ++i) {
      batch.push_back({FilePath(i / kVectorsPerFile, files),
                       std::make_pair(uint64_t(i % kVectorsPerFile), uint64_t{1}),
                       std::vector<float>(set.vec(i), set.vec(i) + set.dim)});
    }
    Check(out.index->SetVectors(kModel, set.l2 ? VectorMetric::kL2 : VectorMetric::kInnerProduct,
                                batch), "set vectors");
  }
  out.ingest_seconds = NowSeconds() - start;
  IndexOptions always_hnsw;
  always_hnsw.exact_max_visible = 0;
  out.ann_index = CheckValue(Index::Open(out.store.get(), always_hnsw), "open index");
  out.data_mdb_bytes = std::filesystem::file_size(path + "/data.mdb");
  return out;
}

SearchRequest VectorQuery(const VectorSet& set, size_t q, int ef, const std::string& under) {
  SearchRequest r;
  r.model = kModel;
  r.vector.assign(set.query(q), set.query(q) + set.dim);
  r.k = kK;
  r.passages = true;
  r.snippets = false;
  r.ef_search = ef;
  r.under = under;
  return r;
}

// Runs every query once through VexFS; returns seconds and the ids found.
double RunVexfs(Index& index, const VectorSet& set, int ef, const std::string& under,
                std::vector<std::vector<uint64_t>>* found, size_t* short_results) {
  found->assign(set.nq(), {});
  *short_results = 0;
  double start = NowSeconds();
  for (size_t q = 0; q < set.nq(); ++q) {
    SearchResult r = CheckValue(index.Search(VectorQuery(set, q, ef, under)), "search");
    for (const SearchHit& h : r.hits) (*found)[q].push_back(VectorIdOf(h.path, h.offset));
    if (r.hits.size() < kK) ++*short_results;
  }
  return NowSeconds() - start;
}

// Raw FAISS with `ask` results per query, keeping only `visible` ids (all when
// empty) and at most k of them.
double RunFaiss(faiss::IndexHNSWFlat& hnsw, const VectorSet& set, int ef, size_t ask,
                const std::vector<bool>& visible, std::vector<std::vector<uint64_t>>* found,
                size_t* short_results) {
  found->assign(set.nq(), {});
  *short_results = 0;
  std::vector<float> dist(ask);
  std::vector<faiss::Index::idx_t> ids(ask);
  hnsw.hnsw.efSearch = std::max<int>(ef, static_cast<int>(ask));
  SingleThreaded one_thread;  // as VexFS searches: one query, one thread
  double start = NowSeconds();
  for (size_t q = 0; q < set.nq(); ++q) {
    hnsw.search(1, set.query(q), static_cast<faiss::Index::idx_t>(ask), dist.data(), ids.data());
    for (size_t j = 0; j < ask && (*found)[q].size() < kK; ++j) {
      if (ids[j] < 0) break;
      if (visible.empty() || visible[static_cast<size_t>(ids[j])]) {
        (*found)[q].push_back(static_cast<uint64_t>(ids[j]));
      }
    }
    if ((*found)[q].size() < kK) ++*short_results;
  }
  return NowSeconds() - start;
}

double ExactQps(const VectorSet& set, size_t queries) {
  faiss::IndexFlat flat(static_cast<int>(set.dim),
                        set.l2 ? faiss::METRIC_L2 : faiss::METRIC_INNER_PRODUCT);
  flat.add(static_cast<faiss::Index::idx_t>(set.n()), set.base.data());
  std::vector<float> dist(kK);
  std::vector<faiss::Index::idx_t> ids(kK);
  queries = std::min(queries, set.nq());
  SingleThreaded one_thread;
  double start = NowSeconds();
  for (size_t q = 0; q < queries; ++q) {
    flat.search(1, set.query(q), kK, dist.data(), ids.data());
  }
  return double(queries) / (NowSeconds() - start);
}

struct SetReport {
  nlohmann::json json;
  std::string markdown;
};

// VexFS's own graph as raw FAISS sees it: the checkpoint file it wrote, read
// back with faiss::read_index. Searching it gives VexFS's recall exactly, so the
// q/s ratio is the cost of VexFS's search path alone.
std::unique_ptr<faiss::IndexHNSWFlat> LoadVexfsGraph(const std::string& index_dir) {
  for (const auto& e : std::filesystem::directory_iterator(index_dir)) {
    if (e.path().extension() != ".faiss") continue;
    std::unique_ptr<faiss::Index> loaded(faiss::read_index(e.path().c_str()));
    if (auto* hnsw = dynamic_cast<faiss::IndexHNSWFlat*>(loaded.get())) {
      loaded.release();
      return std::unique_ptr<faiss::IndexHNSWFlat>(hnsw);
    }
  }
  Check(Status::NotFound("no HNSW checkpoint in " + index_dir), "load VexFS's graph");
  return nullptr;
}

// Recall and queries/s at each efSearch: VexFS, raw FAISS on the same graph and
// raw FAISS on a graph of its own, interleaved.
void CompareUnfiltered(const Options& o, const VectorSet& set, Index& index,
                       faiss::IndexHNSWFlat& same_graph, faiss::IndexHNSWFlat& own_graph,
                       const std::vector<std::vector<uint64_t>>& truth, double exact_qps,
                       SetReport* report) {
  Table table({"efSearch", "vexfs recall@10", "vexfs q/s", "faiss, same graph: recall@10", "q/s",
               "vexfs / same graph q/s", "faiss, own graph: recall@10", "q/s",
               "vexfs / exact q/s"});
  for (int ef : o.efs) {
    std::vector<double> vexfs_t, same_t, own_t;
    double vexfs_recall = 0, same_recall = 0, own_recall = 0;
    for (int rep = 0; rep < o.reps; ++rep) {
      std::vector<std::vector<uint64_t>> found;
      size_t short_results = 0;
      vexfs_t.push_back(RunVexfs(index, set, ef, "", &found, &short_results));
      vexfs_recall = Recall(found, truth);
      same_t.push_back(RunFaiss(same_graph, set, ef, kK, {}, &found, &short_results));
      same_recall = Recall(found, truth);
      own_t.push_back(RunFaiss(own_graph, set, ef, kK, {}, &found, &short_results));
      own_recall = Recall(found, truth);
    }
    const double nq = double(set.nq());
    double vq = nq / Median(vexfs_t), sq = nq / Median(same_t), oq = nq / Median(own_t);
    table.AddRow({std::to_string(ef), Fixed(vexfs_recall, 3), Fixed(vq, 0),
                  Fixed(same_recall, 3), Fixed(sq, 0), Fixed(vq / sq, 2), Fixed(own_recall, 3),
                  Fixed(oq, 0), Ratio(vq, exact_qps)});
    report->json["ef"].push_back({{"ef", ef}, {"vexfs_recall", vexfs_recall}, {"vexfs_qps", vq},
                                  {"same_graph_recall", same_recall}, {"same_graph_qps", sq},
                                  {"faiss_recall", own_recall}, {"faiss_qps", oq}});
    Progress(set.name + " ef " + std::to_string(ef) + ": vexfs " + Fixed(vq, 0) +
             " q/s, faiss on the same graph " + Fixed(sq, 0) + " q/s, on its own " +
             Fixed(oq, 0) + " q/s");
  }
  std::cout << table.Text();
  report->markdown += table.Markdown() + "\n";
}

std::vector<bool> VisibleUnder(const VectorSet& set, const std::string& prefix) {
  size_t files = (set.n() + kVectorsPerFile - 1) / kVectorsPerFile;
  std::vector<bool> visible(set.n(), false);
  for (size_t i = 0; i < set.n(); ++i) {
    visible[i] = FilePath(i / kVectorsPerFile, files).starts_with(prefix + "/");
  }
  return visible;
}

void CompareFiltered(const VectorSet& set, Index& index,
                     faiss::IndexHNSWFlat& hnsw, SetReport* report) {
  Table table({"visible", "vexfs method", "vexfs recall@10", "vexfs q/s", "vexfs < k",
               "drop after k=10: recall", "q/s", "< k", "drop after k=100: recall", "q/s",
               "< k"});
  const int ef = 64;
  for (const char* prefix : {"h0/d0/e0/f0", "h0/d0/e0", "h0/d0", "h0"}) {
    std::vector<bool> visible = VisibleUnder(set, prefix);
    size_t count = std::count(visible.begin(), visible.end(), true);
    auto truth = ExactNeighbours(set, kK, visible);
    std::vector<std::vector<uint64_t>> found;
    size_t vexfs_short = 0, short10 = 0, short100 = 0;
    double vt = RunVexfs(index, set, ef, prefix, &found, &vexfs_short);
    double vexfs_recall = Recall(found, truth);
    SearchResult probe = CheckValue(index.Search(VectorQuery(set, 0, ef, prefix)), "probe");
    double t10 = RunFaiss(hnsw, set, ef, kK, visible, &found, &short10);
    double r10 = Recall(found, truth);
    double t100 = RunFaiss(hnsw, set, ef, 10 * kK, visible, &found, &short100);
    double r100 = Recall(found, truth);
    double nq = double(set.nq());
    std::string pct = Fixed(100.0 * double(count) / double(set.n()), 1) + "%";
    table.AddRow({pct, probe.method, Fixed(vexfs_recall, 3), Fixed(nq / vt, 0),
                  Fixed(100.0 * vexfs_short / nq, 0) + "%", Fixed(r10, 3), Fixed(nq / t10, 0),
                  Fixed(100.0 * short10 / nq, 0) + "%", Fixed(r100, 3), Fixed(nq / t100, 0),
                  Fixed(100.0 * short100 / nq, 0) + "%"});
    report->json["filtered"].push_back(
        {{"visible", count}, {"method", probe.method}, {"vexfs_recall", vexfs_recall},
         {"vexfs_qps", nq / vt}, {"vexfs_short", vexfs_short}, {"drop10_recall", r10},
         {"drop10_qps", nq / t10}, {"drop10_short", short10}, {"drop100_recall", r100},
         {"drop100_qps", nq / t100}, {"drop100_short", short100}});
    Progress(set.name + " filtered " + pct + " done");
  }
  std::cout << table.Text();
  report->markdown += "\nFiltered by path prefix (efSearch 64):\n\n" + table.Markdown() + "\n";
}

SetReport BenchSet(const Options& o, const VectorSet& set) {
  SetReport report;
  std::string dir = FreshDir(o.dir, "search-" + std::to_string(set.n()));
  Progress(set.name + ": exact ground truth");
  auto truth = ExactNeighbours(set, kK);
  double exact_qps = ExactQps(set, o.exact_queries);
  Progress(set.name + ": loading the store");
  LoadedStore loaded = LoadIntoStore(set, dir + "/store");
  uint64_t rss0 = RssBytes();
  double t0 = NowSeconds();
  // The build is the catch-up's (the background indexer's), then the first search.
  Check(loaded.ann_index->CatchUp(), "build HNSW");
  CheckValue(loaded.ann_index->Search(VectorQuery(set, 0, 64, "")), "first search");
  double vexfs_build = NowSeconds() - t0;
  uint64_t vexfs_ram = RssBytes() - rss0;
  uint64_t ann_files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/store/index")) {
    ann_files += e.file_size();
  }
  Progress(set.name + ": building raw FAISS");
  uint64_t rss1 = RssBytes();
  faiss::IndexHNSWFlat hnsw(static_cast<int>(set.dim), 32,
                            set.l2 ? faiss::METRIC_L2 : faiss::METRIC_INNER_PRODUCT);
  hnsw.hnsw.efConstruction = 80;
  t0 = NowSeconds();
  hnsw.add(static_cast<faiss::Index::idx_t>(set.n()), set.base.data());
  double faiss_build = NowSeconds() - t0;
  uint64_t faiss_ram = RssBytes() - rss1;
  double n = double(set.n());
  report.json = {{"set", set.name}, {"n", set.n()}, {"dim", set.dim}, {"queries", set.nq()},
                 {"exact_qps", exact_qps}, {"ingest_seconds", loaded.ingest_seconds},
                 {"vexfs_build_seconds", vexfs_build}, {"faiss_build_seconds", faiss_build},
                 {"data_mdb_bytes", loaded.data_mdb_bytes}, {"ann_file_bytes", ann_files},
                 {"vexfs_ram_bytes", vexfs_ram}, {"faiss_ram_bytes", faiss_ram}};
  report.markdown = "### " + set.name + " (" + std::to_string(set.n()) + " vectors, d=" +
                    std::to_string(set.dim) + ", " + (set.l2 ? "L2" : "inner product") + ", " +
                    std::to_string(set.nq()) + " queries)\n\n";
  Table facts({"exact q/s", "durable ingest (vectors/s)", "vexfs HNSW build (s)",
               "faiss HNSW build (s)", "LMDB bytes/vector", "ANN file bytes/vector",
               "vexfs RAM bytes/vector", "faiss RAM bytes/vector"});
  facts.AddRow({Fixed(exact_qps, 1), Fixed(n / loaded.ingest_seconds, 0), Fixed(vexfs_build, 1),
                Fixed(faiss_build, 1), Fixed(double(loaded.data_mdb_bytes) / n, 0),
                Fixed(double(ann_files) / n, 0), Fixed(double(vexfs_ram) / n, 0),
                Fixed(double(faiss_ram) / n, 0)});
  std::cout << facts.Text();
  report.markdown += facts.Markdown() + "\n";
  auto same_graph = LoadVexfsGraph(dir + "/store/index");
  CompareUnfiltered(o, set, *loaded.ann_index, *same_graph, hnsw, truth, exact_qps, &report);
  if (o.filtered) {
    // As in a long-running process: the graph is in memory once any search needed it.
    CheckValue(loaded.index->Search(VectorQuery(set, 0, 64, "")), "warm-up search");
    CompareFiltered(set, *loaded.index, hnsw, &report);
  }
  if (!o.keep) RemoveTree(dir);
  return report;
}

SetReport BenchTextIngest(const Options& o) {
  std::string dir = FreshDir(o.dir, "search-ingest");
  auto store = CheckValue(Store::Create(dir + "/store"), "create store");
  auto tree = CheckValue(store->Tree(), "tree");
  std::vector<std::string> paths = TreePaths(o.ingest_files, 100);
  uint64_t bytes = 0;
  Rng sizes(7);
  for (size_t start = 0; start < paths.size(); start += 1000) {
    Check(tree->Edit([&](TreeEditor& ed) -> Status {
      for (size_t i = start; i < std::min(paths.size(), start + 1000); ++i) {
        std::string text = TextContent(i + 1, sizes.Between(1024, 4096));
        bytes += text.size();
        VEXFS_RETURN_IF_ERROR(ed.PutFile(paths[i], text, {}).status());
      }
      return Status::Ok();
    }), "put");
  }
  auto index = CheckValue(Index::Open(store.get()), "index");
  double t0 = NowSeconds();
  Check(index->Wait(), "index wait");
  double secs = NowSeconds() - t0;
  auto status = CheckValue(index->GetStatus(), "status");
  uint64_t vectors = status.models.empty() ? 0 : status.models[0].vectors;
  SetReport report;
  report.json = {{"set", "text ingest"}, {"files", paths.size()}, {"bytes", bytes},
                 {"vectors", vectors}, {"seconds", secs}};
  Table table({"files", "text", "passages embedded", "indexing (s)", "files/s", "passages/s",
               "MB/s"});
  table.AddRow({std::to_string(paths.size()), Bytes(bytes), std::to_string(vectors),
                Fixed(secs, 2), Fixed(double(paths.size()) / secs, 0),
                Fixed(double(vectors) / secs, 0), Fixed(double(bytes) / secs / 1e6, 1)});
  std::cout << table.Text();
  report.markdown = "### Text files through the `hash` embedder\n\n" + table.Markdown() + "\n";
  if (!o.keep) RemoveTree(dir);
  return report;
}

}  // namespace
}  // namespace vexfs::bench

int main(int argc, char** argv) {
  using namespace vexfs::bench;
  Options o;
  CLI::App app("VexFS search benchmark");
  app.add_option("--fashion", o.fashion, "Fashion-MNIST directory");
  app.add_option("--synthetic", o.synthetic, "Number of clustered vectors");
  app.add_option("--dim", o.dim, "Dimension of the clustered vectors");
  app.add_option("--queries", o.queries, "Queries per set");
  app.add_option("--exact-queries", o.exact_queries, "Queries timed for exact search");
  app.add_option("--efs", o.efs, "efSearch values")->delimiter(',');
  app.add_option("--reps", o.reps, "Repetitions (medians)");
  app.add_flag("--filtered", o.filtered, "Also measure filtered search");
  app.add_option("--ingest-files", o.ingest_files, "Text files for the embedder ingest");
  app.add_option("--dir", o.dir, "Scratch directory");
  app.add_option("--markdown", o.markdown, "Write a markdown section here");
  app.add_flag("--keep", o.keep, "Leave the data behind");
  CLI11_PARSE(app, argc, argv);
  std::vector<SetReport> reports;
  if (!o.fashion.empty()) reports.push_back(BenchSet(o, LoadFashionMnist(o.fashion, o.queries)));
  if (o.synthetic > 0) {
    reports.push_back(BenchSet(o, MakeClustered(o.synthetic, o.dim, o.queries, 20261202)));
  }
  if (o.ingest_files > 0) reports.push_back(BenchTextIngest(o));
  nlohmann::json all = nlohmann::json::array();
  std::string markdown;
  for (const SetReport& r : reports) {
    all.push_back(r.json);
    markdown += r.markdown + "\n";
  }
  Emit({{"bench", "search"}, {"sets", all}}, markdown, o.markdown);
  return 0;
}
