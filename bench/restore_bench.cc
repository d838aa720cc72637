// Measures what a restore costs when one file changed since the snapshot, for
// stores of growing size, side by side with git bringing the same working tree
// back (`git checkout HEAD -- .`), and with materializing the whole snapshot as
// a new branch (what every restore did before restores changed only what differs).
#include <CLI/CLI.hpp>
#include <iostream>
#include <sstream>

#include "bench_util.h"
#include "git_repo.h"
#include "store_ops.h"

namespace vexfs::bench {
namespace {

struct Options {
  std::vector<size_t> sizes = {1000, 10000, 100000};
  int reps = 5;
  size_t per_dir = 100;
  size_t batch = 1000;
  std::string dir = "/tmp/vexfs-restore-bench";
  std::string markdown;
};

// 1-4 KiB of text per file, different for every file (as in snapshot_bench).
std::string Content(size_t index) {
  return TextContent(index * 7919 + 1, 1024 + Rng(index).Next() % 3072);
}

struct SizeResult {
  size_t files = 0;
  std::vector<double> restore_s, git_s, materialize_s;
};

// One round: the same file changed on both sides, then each brought back.
void MeasureRound(const std::vector<std::string>& paths, int round, Store* store,
                  GitRepo* git, SizeResult* r) {
  size_t i = (size_t(round) * 1000003 + 13) % paths.size();
  std::string edited = Content(i) + "edited in round " + std::to_string(round) + "\n";
  PutOne(store, paths[i], edited);
  WriteFile(git->dir() + "/" + paths[i], edited, false);
  double start = NowSeconds();
  Check(store->Restore("s1"), "restore");
  r->restore_s.push_back(NowSeconds() - start);
  auto tree = CheckValue(store->Tree(), "open the working tree");
  bool back = CheckValue(tree->ReadAll(paths[i]), "read the restored file") == Content(i);
  Check(back ? Status::Ok() : Status::Corruption(paths[i] + " differs"), "restore");
  r->git_s.push_back(TimeProcess({"git", "-C", git->dir(), "checkout", "-q", "HEAD", "--", "."}));
  std::string branch = "whole-" + std::to_string(round);
  start = NowSeconds();
  Check(store->CreateBranch(branch, std::string("s1")), "branch from s1");
  r->materialize_s.push_back(NowSeconds() - start);
  Check(store->Checkout("main"), "checkout main");
  Check(store->DeleteBranch(branch), "delete branch");
}

SizeResult MeasureSize(const Options& o, size_t count) {
  SizeResult r;
  r.files = count;
  std::string what = "restore " + std::to_string(count) + ": ";
  std::string base = FreshDir(o.dir, "restore-" + std::to_string(count));
  std::vector<std::string> paths = TreePaths(count, o.per_dir);
  Progress(what + "writing git working tree and committing it");
  GitRepo git(FreshDir(base, "work"));
  for (size_t i = 0; i < paths.size(); ++i) {
    std::string path = git.dir() + "/" + paths[i];
    if (i % o.per_dir == 0) MakeParentDirs(path);  // TreePaths fills directories in order
    WriteFile(path, Content(i), false);
  }
  git.Init();
  git.TimedCommit();
  Progress(what + "filling the store and snapshotting it");
  std::unique_ptr<Store> store = CreateStore(base + "/store");
  PutFiles(store.get(), paths, Content, o.batch);
  TimedSnapshot(store.get(), "s1");
  SyncAll();
  for (int round = 0; round < o.reps; ++round) {
    Progress(what + "one-file change, round " + std::to_string(round + 1));
    MeasureRound(paths, round, store.get(), &git, &r);
  }
  store.reset();
  RemoveTree(base);
  return r;
}

Table ResultTable(const std::vector<SizeResult>& results) {
  Table t({"files", "vexfs restore (ms)", "git checkout HEAD -- . (ms)", "git / vexfs",
           "whole tree as a new branch (ms)", "whole tree / restore"});
  for (const SizeResult& r : results) {
    double restore = Median(r.restore_s), git = Median(r.git_s);
    double whole = Median(r.materialize_s);
    t.AddRow({std::to_string(r.files), Millis(restore), Millis(git), Ratio(git, restore),
              Millis(whole), Ratio(whole, restore)});
  }
  return t;
}

int Main(int argc, char** argv) {
  Options o;
  CLI::App app{"Restore cost after a one-file change against git, for growing stores"};
  app.add_option("--sizes", o.sizes, "store sizes in files")->delimiter(',');
  app.add_option("--reps", o.reps, "one-file-change rounds per size (median)");
  app.add_option("--per-dir", o.per_dir, "files per directory");
  app.add_option("--batch", o.batch, "files per Edit when filling the store");
  app.add_option("--dir", o.dir, "scratch directory (data of both sides lives here)");
  app.add_option("--markdown", o.markdown, "write the results table to this file");
  CLI11_PARSE(app, argc, argv);
  if (o.sizes.empty() || o.reps < 1 || o.per_dir == 0) return 2;
  IsolateGitConfig();
  if (!GitAvailable()) {
    std::cerr << "error: git is needed as the baseline\n";
    return 1;
  }
  std::vector<SizeResult> results;
  nlohmann::json json = {{"bench", "restore"}, {"reps", o.reps}};
  for (size_t count : o.sizes) {
    results.push_back(MeasureSize(o, count));
    const SizeResult& r = results.back();
    json["sizes"].push_back({{"files", r.files},
                             {"restore_s", Median(r.restore_s)},
                             {"git_checkout_s", Median(r.git_s)},
                             {"whole_tree_s", Median(r.materialize_s)}});
  }
  Table table = ResultTable(results);
  std::cout << table.Text();
  Emit(json, table.Markdown(), o.markdown);
  return 0;
}

}  // namespace
}  // namespace vexfs::bench

int main(int argc, char** argv) { return vexfs::bench::Main(argc, argv); }
