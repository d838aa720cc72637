// The C++ side of the Python overhead benchmark (bench/python_call_bench.py):
// makes the benchmark's store, and times the same search calls through the
// library in process, so the Python side's difference is what the binding adds.
//
//   search_call_bench make --store S [--files N]     a store of N 2 KiB notes, indexed
//   search_call_bench time --store S [--calls C]     C searches (k 10, the default mode,
//                                                    snippets), each query of
//                                                    python_call_bench.py's list in turn;
//                                                    prints {"plain": [s...], "waited": [s...]}
// "plain" is Index::Search alone (Python's search(wait=False)); "waited" adds the
// Index::Wait() that search() runs first by default.
#include <iostream>

#include <CLI/CLI.hpp>

#include "bench_util.h"
#include "vexfs/index.h"
#include "vexfs/local_files.h"
#include "vexfs/store.h"

namespace vexfs::bench {
namespace {

// Words of bench_util's TextContent vocabulary, so every search finds 10 hits.
// python_call_bench.py asks the same queries in the same order.
const char* const kQueries[] = {"agent memory plan", "retry failed tool call", "search index vector",
                                "user asked summary", "model token cache"};

void Make(const std::string& path, size_t files) {
  auto store = CheckValue(Store::Create(path), "create store");
  Check(Index::Enable(store.get()), "enable the index");
  for (size_t i = 0; i < files; ++i) {
    CheckValue(PutBytes(*store, "notes/" + std::to_string(i) + ".md", TextContent(i, 2048)), "put");
  }
  auto index = CheckValue(Index::Open(store.get()), "open index");
  Check(index->Wait(), "index");
}

void Time(const std::string& path, size_t calls) {
  auto store = CheckValue(Store::Open(path), "open store");
  auto index = CheckValue(Index::Open(store.get()), "open index");
  SearchRequest request;
  request.k = 10;
  request.query = kQueries[0];
  CheckValue(index->Search(request), "warm-up search");  // loads the embedder and catalog
  // One pass per kind of call, the queries in turn, as the Python side does.
  std::vector<double> plain, waited;
  for (std::vector<double>* samples : {&plain, &waited}) {
    for (size_t i = 0; i < calls; ++i) {
      request.query = kQueries[i % 5];
      double t = NowSeconds();
      if (samples == &waited) Check(index->Wait(), "wait");
      SearchResult found = CheckValue(index->Search(request), "search");
      samples->push_back(NowSeconds() - t);
      if (found.hits.size() != request.k) {
        std::cerr << "error: a search found " << found.hits.size() << " hits, not 10\n";
        std::exit(1);
      }
    }
  }
  std::cout << nlohmann::json{{"plain", plain}, {"waited", waited}}.dump() << "\n";
}

}  // namespace
}  // namespace vexfs::bench

int main(int argc, char** argv) {
  CLI::App app{"The library's side of the Python call-overhead benchmark"};
  app.require_subcommand(1);
  std::string store;
  size_t files = 1000, calls = 2000;
  CLI::App* make = app.add_subcommand("make", "Make and index the benchmark's store");
  make->add_option("--store", store, "Store directory (new)")->required();
  make->add_option("--files", files, "2 KiB notes");
  CLI::App* time = app.add_subcommand("time", "Time searches through the library");
  time->add_option("--store", store, "Store directory")->required();
  time->add_option("--calls", calls, "Searches timed");
  CLI11_PARSE(app, argc, argv);
  if (make->parsed()) vexfs::bench::Make(store, files);
  if (time->parsed()) vexfs::bench::Time(store, calls);
  return 0;
}
