// Measures bytes on disk for ten snapshots of one tree with 1% of its files changed
// between snapshots: the vexfs store directory against the logical total (every
// snapshot's full size), against the bytes that are actually unique, and against
// git's .git after the same commits, before and after `git gc`.
#include <CLI/CLI.hpp>
#include <iostream>
#include <set>
#include <sstream>

#include "bench_util.h"
#include "git_repo.h"
#include "store_ops.h"

namespace vexfs::bench {
namespace {

struct Options {
  size_t files = 2000;
  size_t min_size = 4096;
  size_t max_size = 16384;
  int snapshots = 10;
  double changed_fraction = 0.01;
  std::vector<std::string> contents = {"text", "random"};
  std::string dir = "/tmp/vexfs-bench";
  std::string markdown;
  bool keep = false;
};

struct Result {
  std::string content;
  uint64_t tree_bytes = 0;     // one snapshot's files
  uint64_t logical_bytes = 0;  // every snapshot's files added up
  uint64_t unique_bytes = 0;   // the first tree plus every changed version
  uint64_t store_dir_bytes = 0;
  uint64_t data_mdb_bytes = 0;
  StoreStats stats;
  uint64_t git_bytes = 0;
  uint64_t git_gc_bytes = 0;
};

// The tree as it evolves: current content of every file.
struct EvolvingTree {
  std::vector<std::string> paths;
  std::vector<std::string> data;
  uint64_t Bytes() const {
    uint64_t total = 0;
    for (const std::string& d : data) total += d.size();
    return total;
  }
};

EvolvingTree InitialTree(const Options& o, bool text) {
  EvolvingTree t;
  t.paths = TreePaths(o.files, 100);
  Rng sizes(42);
  for (size_t i = 0; i < o.files; ++i) {
    size_t size = sizes.Between(o.min_size, o.max_size);
    t.data.push_back(text ? TextContent(i + 1, size) : RandomContent(i + 1, size));
  }
  return t;
}

// Changes `fraction` of the files (at least one), each by an appended line or, for
// binary content, 64 appended bytes. Returns the indexes changed.
std::vector<size_t> ChangeSome(const Options& o, bool text, int round, EvolvingTree* t) {
  size_t count = std::max<size_t>(1, size_t(o.files * o.changed_fraction));
  Rng rng(1000 + round);
  std::set<size_t> picked;
  while (picked.size() < count) picked.insert(rng.Next() % o.files);
  for (size_t i : picked) {
    t->data[i] += text ? "revised in snapshot " + std::to_string(round) + "\n"
                       : RandomContent(rng.Next(), 64);
  }
  return {picked.begin(), picked.end()};
}

void PutChanged(Store* store, const EvolvingTree& t, const std::vector<size_t>& changed) {
  std::vector<std::string> paths;
  for (size_t i : changed) paths.push_back(t.paths[i]);
  PutFiles(store, paths, [&](size_t k) { return t.data[changed[k]]; }, paths.size());
}

void WriteChanged(const GitRepo& git, const EvolvingTree& t, const std::vector<size_t>& changed) {
  for (size_t i : changed) WriteFile(git.dir() + "/" + t.paths[i], t.data[i], false);
}

void WriteAll(const GitRepo& git, const EvolvingTree& t) {
  for (size_t i = 0; i < t.paths.size(); ++i) {
    std::string path = git.dir() + "/" + t.paths[i];
    if (i % 100 == 0) MakeParentDirs(path);
    WriteFile(path, t.data[i], false);
  }
}

Result Measure(const Options& o, const std::string& content) {
  bool text = content == "text";
  Result r;
  r.content = content;
  std::string base = FreshDir(o.dir, "dedup-" + content);
  std::string store_dir = base + "/store";
  auto store = CreateStore(store_dir);
  GitRepo git(FreshDir(base, "git"));
  git.Init();

  EvolvingTree t = InitialTree(o, text);
  r.tree_bytes = t.Bytes();
  r.unique_bytes = r.tree_bytes;
  PutFiles(store.get(), t.paths, [&](size_t i) { return t.data[i]; }, 500);
  WriteAll(git, t);
  for (int s = 0; s < o.snapshots; ++s) {
    if (s > 0) {
      std::vector<size_t> changed = ChangeSome(o, text, s, &t);
      for (size_t i : changed) r.unique_bytes += t.data[i].size();
      PutChanged(store.get(), t, changed);
      WriteChanged(git, t, changed);
    }
    TimedSnapshot(store.get(), "s" + std::to_string(s));
    git.TimedCommit();
    r.logical_bytes += t.Bytes();
  }
  r.stats = CheckValue(store->Stats(), "store stats");
  store.reset();
  r.store_dir_bytes = DiskUsage(store_dir);
  r.data_mdb_bytes = StoreDataBytes(store_dir);
  r.git_bytes = git.GitDirBytes();
  git.Gc();
  r.git_gc_bytes = git.GitDirBytes();
  if (!o.keep) RemoveTree(base);
  return r;
}

Table ResultTable(const std::vector<Result>& results) {
  Table t({"content", "one tree", "logical (all snapshots)", "unique bytes",
           "vexfs store dir (du)", "vexfs map_used", "vexfs objects (stored)", "git .git",
           "git .git after gc", "logical / vexfs", "git / vexfs", "git gc / vexfs"});
  for (const Result& r : results) {
    t.AddRow({r.content, Bytes(r.tree_bytes), Bytes(r.logical_bytes), Bytes(r.unique_bytes),
              Bytes(r.store_dir_bytes), Bytes(r.stats.map_used), Bytes(r.stats.object_bytes),
              Bytes(r.git_bytes), Bytes(r.git_gc_bytes),
              Ratio(r.logical_bytes, r.store_dir_bytes), Ratio(r.git_bytes, r.store_dir_bytes),
              Ratio(r.git_gc_bytes, r.store_dir_bytes)});
  }
  return t;
}

nlohmann::json ToJson(const Result& r) {
  return {{"content", r.content},
          {"tree_bytes", r.tree_bytes},
          {"logical_bytes", r.logical_bytes},
          {"unique_bytes", r.unique_bytes},
          {"store_dir_bytes", r.store_dir_bytes},
          {"data_mdb_bytes", r.data_mdb_bytes},
          {"map_used", r.stats.map_used},
          {"object_bytes", r.stats.object_bytes},
          {"objects", r.stats.objects},
          {"git_bytes", r.git_bytes},
          {"git_gc_bytes", r.git_gc_bytes}};
}

std::string Markdown(const Options& o, const std::vector<Result>& results) {
  size_t changed = std::max<size_t>(1, size_t(o.files * o.changed_fraction));
  std::ostringstream md;
  md << "## Bytes on disk: " << o.snapshots << " snapshots with "
     << Fixed(o.changed_fraction * 100, 0) << "% of files changed between them\n\n"
     << o.files << " files of " << o.min_size / 1024 << "-" << o.max_size / 1024
     << " KiB, 100 to a directory; " << changed
     << " files get a line (text) or 64 bytes (random) appended before each later "
        "snapshot. \"unique bytes\" is the first tree plus every changed version, the "
        "floor for whole-file dedup without compression. Sizes are allocated blocks "
        "(st_blocks), not apparent sizes; `map_used` is LMDB's high-water mark "
        "including pages on its free list. git: one commit per snapshot, then `git gc` "
        "(delta compression) measured separately.\n\n"
     << ResultTable(results).Markdown() << "\n";
  return md.str();
}

int Main(int argc, char** argv) {
  Options o;
  CLI::App app{"bytes on disk for a series of snapshots, against git"};
  app.add_option("--files", o.files, "files in the tree");
  app.add_option("--min-size", o.min_size, "smallest file in bytes");
  app.add_option("--max-size", o.max_size, "largest file in bytes");
  app.add_option("--snapshots", o.snapshots, "snapshots (git commits) to take");
  app.add_option("--changed", o.changed_fraction, "fraction of files changed between them");
  app.add_option("--content", o.contents, "content kinds: text, random")->delimiter(',');
  app.add_option("--dir", o.dir, "scratch directory");
  app.add_option("--markdown", o.markdown, "write the results section to this file");
  app.add_flag("--keep", o.keep, "keep the store and the repository");
  CLI11_PARSE(app, argc, argv);
  if (o.files < 1 || o.snapshots < 1 || o.min_size < 1 || o.max_size < o.min_size) return 2;

  IsolateGitConfig();
  if (!GitAvailable()) {
    std::cerr << "error: git is needed as the baseline\n";
    return 1;
  }
  std::vector<Result> results;
  nlohmann::json json = {{"bench", "dedup"}, {"files", o.files}, {"snapshots", o.snapshots}};
  for (const std::string& content : o.contents) {
    Progress("dedup: " + content + " content");
    results.push_back(Measure(o, content));
    json["results"].push_back(ToJson(results.back()));
  }
  std::cout << ResultTable(results).Text();
  Emit(json, Markdown(o, results), o.markdown);
  return 0;
}

}  // namespace
}  // namespace vexfs::bench

int main(int argc, char** argv) { return vexfs::bench::Main(argc, argv); }
