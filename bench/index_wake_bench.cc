// Write -> searchable with nobody notifying the index: vexfs::Db's background
// indexer, woken by the store's commits (CommitWatch), against the rule it
// replaced for writes the indexer was not told about, a look every 100 ms.
// Notes are written one at a time, by this process and by another one (the
// vexfs CLI's `put`); each is timed from its commit (this process) or from the
// CLI's exit (the other) until a search that does not index first finds it.
#include <CLI/CLI.hpp>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <thread>

#include "bench_util.h"
#include "vexfs/db.h"

namespace vexfs::bench {
namespace {

struct Latencies {
  std::vector<double> this_process, other_process;
};

// Seconds from now until `word` is the best hit of a search that does not index.
double SecondsUntilFound(Db& db, const std::string& word, const std::string& path) {
  SearchRequest r;
  r.query = word;
  r.k = 1;
  double start = NowSeconds();
  for (;;) {
    auto found = CheckValue(db.Search(r, /*wait=*/false), "search");
    if (!found.hits.empty() && found.hits[0].path == path) return NowSeconds() - start;
    if (NowSeconds() - start > 30) Check(Status::IOError(path + " unfound after 30 s"), "wait");
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

void WriteHere(Db& db, const std::string& path, const std::string& text) {
  auto tree = CheckValue(db.store().Tree(), "tree");
  Check(tree->Edit([&](TreeEditor& ed) { return ed.PutFile(path, text, {}).status(); }), "write");
}

void PutFromAnotherProcess(const std::string& vexfs, const std::string& store,
                           const std::string& local, const std::string& path) {
  std::string command = vexfs + " --store " + store + " put " + local + " " + path + " >/dev/null";
  if (std::system(command.c_str()) != 0) Check(Status::IOError(command + " failed"), "put");
}

// One way of indexing: `watch` (the Db's indexer) or the 100 ms poller.
Latencies Measure(const std::string& dir, const std::string& vexfs, bool watch, int notes,
                  int pause_ms) {
  std::string store = dir + (watch ? "/watch" : "/poll");
  DbOptions options;
  options.background_indexing = watch;
  auto db = CheckValue(Db::Create(store, options), "create");
  std::atomic<bool> stop{false};
  std::thread poller;
  if (!watch) {
    poller = std::thread([&] {
      while (!stop) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        Check(CheckValue(db->index(), "index")->Wait(), "poll");
      }
    });
  }
  // The first drain loads the embedder: not what is measured.
  WriteHere(*db, "warm.md", "warm up the indexer");
  SecondsUntilFound(*db, "warm", "warm.md");
  Latencies out;
  for (int i = 0; i < notes; ++i) {
    // A pause first, so each note is a write of its own and not part of a burst
    // (which the indexer gathers for 2 ms of quiet on purpose).
    std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
    std::string here = "zq" + std::to_string(i) + "here";
    WriteHere(*db, "notes/" + here + ".md", "a note about " + here);
    out.this_process.push_back(SecondsUntilFound(*db, here, "notes/" + here + ".md"));
    std::string there = "zq" + std::to_string(i) + "there";
    std::string local = dir + "/" + there + ".md";
    std::ofstream(local) << "a note about " << there << "\n";
    std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
    PutFromAnotherProcess(vexfs, store, local, "notes/" + there + ".md");
    out.other_process.push_back(SecondsUntilFound(*db, there, "notes/" + there + ".md"));
  }
  stop = true;
  if (poller.joinable()) poller.join();
  return out;
}

}  // namespace
}  // namespace vexfs::bench

int main(int argc, char** argv) {
  using namespace vexfs::bench;
  CLI::App app{"Write -> searchable: the commit-woken indexer against a 100 ms poll"};
  std::string vexfs = "build/tools/vexfs/vexfs", base = "/tmp";
  int notes = 30, pause_ms = 20;
  app.add_option("--vexfs", vexfs, "The vexfs CLI, which writes from another process");
  app.add_option("--dir", base, "Where the work directory is made (default /tmp)");
  app.add_option("--notes", notes, "Notes written by each process");
  app.add_option("--pause-ms", pause_ms, "Pause before each note (0: back to back, a burst)");
  CLI11_PARSE(app, argc, argv);
  std::string dir = FreshDir(base, "vexfs-wake-bench");
  std::cout << "| who wrote | commit-woken p50 (ms) | p90 | 100 ms poll p50 (ms) | p90 |\n"
               "|---|---:|---:|---:|---:|\n";
  Latencies watch = Measure(dir, vexfs, /*watch=*/true, notes, pause_ms);
  Latencies poll = Measure(dir, vexfs, /*watch=*/false, notes, pause_ms);
  auto row = [](const char* who, const std::vector<double>& a, const std::vector<double>& b) {
    std::printf("| %s | %.2f | %.2f | %.1f | %.1f |\n", who, Median(a) * 1e3,
                Percentile(a, 0.9) * 1e3, Median(b) * 1e3, Percentile(b, 0.9) * 1e3);
  };
  row("this process", watch.this_process, poll.this_process);
  row("another process (CLI put)", watch.other_process, poll.other_process);
  RemoveTree(dir);
  return 0;
}
