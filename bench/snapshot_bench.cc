// Measures what a snapshot costs when one file changed, for stores of growing size,
// side by side with git committing the same trees: the first full snapshot against
// git's first commit, then snapshots of a one-file change (through the library and,
// where the CLI works, end to end through `vexfs snapshot create`) against git
// commits of the same change.
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
  int reps = 7;
  // Fresh stores and repositories per size, in the order of `sizes`; the last
  // value covers the remaining sizes. Large sizes take minutes per fresh tree.
  std::vector<int> first_reps = {3};
  size_t per_dir = 100;
  size_t batch = 1000;
  std::string dir = "/tmp/vexfs-bench";
  std::string cli;
  std::string markdown;
  bool keep = false;
};

// Durable git: every object, the index and the refs are fsynced, as vexfs syncs
// every commit. Git's default syncs packs only, not loose objects or the index.
const std::vector<std::string> kGitDurable = {"core.fsync=all", "core.fsyncMethod=fsync"};

// 1-4 KiB of text per file, different for every file.
size_t FileSize(size_t index) { return 1024 + Rng(index).Next() % 3072; }
std::string Content(size_t index) { return TextContent(index * 7919 + 1, FileSize(index)); }
// The content after the one-line edit of round `round`.
std::string Edited(size_t index, int round) {
  return Content(index) + "edited in round " + std::to_string(round) + "\n";
}

// The file series `series` changes in `round`: a different file every time (the
// multiplier is prime), spread over the whole tree.
size_t PickFile(size_t count, int series, int round) {
  size_t k = size_t(round) * 4 + size_t(series);
  return (k * 1000003 + 13) % count;
}

struct SizeResult {
  size_t files = 0;
  uint64_t bytes = 0;
  std::vector<double> put_s, first_snapshot_s, git_first_s;
  std::vector<double> edit_s, snapshot_s, cli_s, git_s, git_durable_s;
  std::vector<double> nosync_s;  // snapshots of a store opened without sync_on_commit
  std::vector<double> written;   // bytes each synced one-file-change snapshot wrote
};

// The same files as the store holds, as git's working directory.
void WriteWorkingTree(const std::string& dir, const std::vector<std::string>& paths,
                      size_t per_dir) {
  for (size_t i = 0; i < paths.size(); ++i) {
    std::string path = dir + "/" + paths[i];
    if (i % per_dir == 0) MakeParentDirs(path);  // TreePaths fills directories in order
    WriteFile(path, Content(i), false);
  }
}

// One round: the same file changed on both sides, then a vexfs snapshot and a git
// commit; then a git commit with full fsync and a CLI snapshot, each of its own
// change so no side is timed on a tree another side already processed.
void MeasureRound(const Options& o, const std::vector<std::string>& paths, int round,
                  Store* store, const std::string& store_dir, GitRepo* git, bool use_cli,
                  SizeResult* r) {
  size_t i = PickFile(paths.size(), 0, round);
  r->edit_s.push_back(PutOne(store, paths[i], Edited(i, round)));
  WriteFile(git->dir() + "/" + paths[i], Edited(i, round), false);
  SyncAll();
  uint64_t before = WrittenBytes();
  r->snapshot_s.push_back(TimedSnapshot(store, "lib-" + std::to_string(round)));
  r->written.push_back(double(WrittenBytes() - before));
  SyncAll();
  r->git_s.push_back(git->TimedCommit());

  size_t j = PickFile(paths.size(), 1, round);
  WriteFile(git->dir() + "/" + paths[j], Edited(j, round), false);
  SyncAll();
  r->git_durable_s.push_back(git->TimedCommit(kGitDurable));
  if (!use_cli) return;
  size_t k = PickFile(paths.size(), 2, round);
  PutOne(store, paths[k], Edited(k, round));
  SyncAll();
  r->cli_s.push_back(TimeProcess(
      {o.cli, "--store", store_dir, "snapshot", "create", "cli-" + std::to_string(round)}));
}

// One first snapshot of a fresh store and one first commit of a fresh repository
// holding the same files. Nothing is deleted here: on a filesystem without a
// journal, ext4 slows inode allocation for about 30 s after mass deletions, which
// would bill git for the clean-up. An earlier repository is moved aside instead,
// and every store gets its own directory. Returns the new store's directory and
// leaves `store` open on it.
std::string MeasureFirst(const Options& o, const std::vector<std::string>& paths,
                         const std::string& base, int rep, std::unique_ptr<Store>* store,
                         GitRepo* git, SizeResult* r) {
  std::string what = "snapshot " + std::to_string(paths.size()) + ": ";
  std::string store_dir = base + "/store-" + std::to_string(rep);
  store->reset();
  *store = CreateStore(store_dir);
  Progress(what + "putting files into a new store");
  r->put_s.push_back(PutFiles(store->get(), paths, Content, o.batch));
  SyncAll();
  r->first_snapshot_s.push_back(TimedSnapshot(store->get(), "first"));
  if (rep > 0) git->SetAside(base + "/git-" + std::to_string(rep - 1));
  git->Init();
  SyncAll();
  Progress(what + "git first commit");
  r->git_first_s.push_back(git->TimedCommit());
  return store_dir;
}

// Snapshots of one-file changes with the store reopened without sync_on_commit:
// the work a snapshot does apart from waiting for the disk.
void MeasureWithoutSync(const Options& o, const std::vector<std::string>& paths,
                        const std::string& store_dir, SizeResult* r) {
  StoreOptions options;
  options.sync_on_commit = false;
  auto store = CheckValue(Store::Open(store_dir, options), "reopen store without sync");
  for (int round = 0; round < o.reps; ++round) {
    size_t i = PickFile(paths.size(), 3, round);
    PutOne(store.get(), paths[i], Edited(i, round));
    r->nosync_s.push_back(TimedSnapshot(store.get(), "nosync-" + std::to_string(round)));
  }
  Check(store->Sync(), "sync store");
}

int FirstReps(const Options& o, size_t size_index) {
  return o.first_reps[std::min(size_index, o.first_reps.size() - 1)];
}

SizeResult MeasureSize(const Options& o, size_t count, int first_reps, bool use_cli) {
  SizeResult r;
  r.files = count;
  std::string what = "snapshot " + std::to_string(count) + ": ";
  std::string base = FreshDir(o.dir, "snapshot-" + std::to_string(count));
  std::vector<std::string> paths = TreePaths(count, o.per_dir);
  for (size_t i = 0; i < count; ++i) r.bytes += FileSize(i);
  Progress(what + "writing git working tree");
  GitRepo git(FreshDir(base, "work"));
  WriteWorkingTree(git.dir(), paths, o.per_dir);
  SyncAll();  // its write-back must not overlap the timed puts

  std::unique_ptr<Store> store;
  std::string store_dir;
  for (int rep = 0; rep < first_reps; ++rep) {
    store_dir = MeasureFirst(o, paths, base, rep, &store, &git, &r);
  }
  for (int round = 0; round < o.reps; ++round) {
    Progress(what + "one-file change, round " + std::to_string(round + 1));
    MeasureRound(o, paths, round, store.get(), store_dir, &git, use_cli, &r);
  }
  store.reset();  // one process must not open a store twice
  Progress(what + "one-file changes without sync");
  MeasureWithoutSync(o, paths, store_dir, &r);
  return r;
}

nlohmann::json ToJson(const SizeResult& r) {
  return {{"files", r.files},
          {"bytes", r.bytes},
          {"put_s", r.put_s},
          {"median_put_s", Median(r.put_s)},
          {"median_first_snapshot_s", Median(r.first_snapshot_s)},
          {"median_git_first_commit_s", Median(r.git_first_s)},
          {"first_snapshot_s", r.first_snapshot_s},
          {"git_first_commit_s", r.git_first_s},
          {"edit_s", r.edit_s},
          {"snapshot_s", r.snapshot_s},
          {"cli_snapshot_s", r.cli_s},
          {"git_commit_s", r.git_s},
          {"git_commit_fsync_all_s", r.git_durable_s},
          {"nosync_snapshot_s", r.nosync_s},
          {"snapshot_written_bytes", r.written},
          {"median_nosync_snapshot_s", Median(r.nosync_s)},
          {"median_snapshot_s", Median(r.snapshot_s)},
          {"median_cli_snapshot_s", Median(r.cli_s)},
          {"median_git_commit_s", Median(r.git_s)},
          {"median_git_commit_fsync_all_s", Median(r.git_durable_s)}};
}

Table FirstTable(const std::vector<SizeResult>& results) {
  Table t({"files", "data", "runs", "vexfs put (s)", "vexfs first snapshot (s)",
           "git first add+commit (s)", "git / vexfs snapshot", "git / vexfs put+snapshot"});
  for (const SizeResult& r : results) {
    double put = Median(r.put_s), snap = Median(r.first_snapshot_s);
    double git = Median(r.git_first_s);
    t.AddRow({std::to_string(r.files), Bytes(r.bytes), std::to_string(r.put_s.size()),
              Fixed(put, 2), Fixed(snap, 3),
              Fixed(git, 2), Ratio(git, snap), Ratio(git, put + snap)});
  }
  return t;
}

Table ChangeTable(const std::vector<SizeResult>& results, bool use_cli) {
  Table t({"files", "vexfs snapshot (ms)", "vexfs written (KiB)", "vexfs edit (ms)",
           "vexfs, no sync (ms)",
           "vexfs CLI snapshot (ms)",
           "git add+commit (ms)", "git, fsync=all (ms)", "git / vexfs",
           "git / vexfs CLI"});
  for (const SizeResult& r : results) {
    double snap = Median(r.snapshot_s);
    double cli = Median(r.cli_s);
    double git = Median(r.git_s);
    t.AddRow({std::to_string(r.files), Millis(snap), Fixed(Median(r.written) / 1024, 0),
              Millis(Median(r.edit_s)),
              Millis(Median(r.nosync_s)), use_cli ? Millis(cli) : "n/a", Millis(git), Millis(Median(r.git_durable_s)),
              Ratio(git, snap), use_cli ? Ratio(git, cli) : "n/a"});
  }
  return t;
}

// Plain statements of the two goals, with the numbers they rest on.
std::string Goals(const std::vector<SizeResult>& results, nlohmann::json* json) {
  std::ostringstream out;
  const SizeResult& big = results.back();
  double speedup = Median(big.git_s) / Median(big.snapshot_s);
  bool fast = speedup >= 10;
  out << "- Goal: a snapshot of a one-file change in a " << big.files
      << "-file store at least 10x faster than git's commit of the same change: **"
      << (fast ? "met" : "not met") << "** (" << Millis(Median(big.snapshot_s))
      << " ms against " << Millis(Median(big.git_s)) << " ms, " << Ratio(speedup, 1)
      << "; against git with fsync=all " << Ratio(Median(big.git_durable_s),
                                                   Median(big.snapshot_s))
      << ").\n";
  if (big.files < 100000) out << "  (The goal names 100k files; this run stopped at fewer.)\n";
  bool all_first = true;
  std::string per_size;
  for (const SizeResult& r : results) {
    double snap = Median(r.first_snapshot_s), git = Median(r.git_first_s);
    bool ok = snap <= git;
    all_first = all_first && ok;
    per_size += (per_size.empty() ? "" : "; ") + std::to_string(r.files) + " files: " +
                Fixed(snap, 3) + " s against " + Fixed(git, 2) + " s" +
                (ok ? "" : " (slower)");
  }
  out << "- Goal: a full first snapshot no slower than git's first commit: **"
      << (all_first ? "met" : "not met") << "** at every size (" << per_size << ").\n";
  double flat = Median(big.snapshot_s) / Median(results.front().snapshot_s);
  double flat_nosync = Median(big.nosync_s) / Median(results.front().nosync_s);
  out << "- Flatness: from " << results.front().files << " to " << big.files
      << " files the one-file-change snapshot takes " << Ratio(flat, 1)
      << " the time with sync and "
      << Ratio(flat_nosync, 1) << " without (" << Millis(Median(results.front().nosync_s))
      << " ms to " << Millis(Median(big.nosync_s)) << " ms, for "
      << Fixed(double(big.files) / results.front().files, 0) << "x the files).\n";
  (*json)["goals"] = {{"small_change_10x_faster", fast},
                      {"small_change_speedup", speedup},
                      {"first_snapshot_not_slower", all_first},
                      {"flatness_largest_over_smallest", flat},
                      {"flatness_nosync_largest_over_smallest", flat_nosync}};
  return out.str();
}

std::string Markdown(const Options& o, const std::vector<SizeResult>& results, bool use_cli,
                     const std::string& cli_note, nlohmann::json* json) {
  std::ostringstream md;
  md << "## Snapshot cost against git commit\n\n"
     << "Trees of small text files (1-4 KiB, " << o.per_dir
     << " to a directory, directories nested ten wide). vexfs: files put through the "
        "library in Edits of "
     << o.batch
     << " files (put time shown separately), then `CreateSnapshot`. git: the same files "
        "written to a working directory before timing, then `git add -A && git commit`.\n\n"
     << "### First full snapshot / first commit (median over `runs` fresh stores and "
        "repositories)\n\n"
     << FirstTable(results).Markdown() << "\n"
     << "### Snapshot after a one-file change (median of " << o.reps
     << " rounds, a different file each round)\n\n"
     << ChangeTable(results, use_cli).Markdown() << "\n"
     << "\"vexfs edit\" is the `Edit` that puts the changed file (its own synced "
        "transaction); git's equivalent, writing the working-tree file, is not timed. "
        "\"vexfs, no sync\" reopens the store without `sync_on_commit` and times "
     << o.reps
     << " more snapshots of one-file changes: the snapshot's own work, without the two "
        "sync points of an LMDB commit. \"vexfs written\" is what the synced snapshot "
        "wrote (write_bytes of /proc/self/io). "
        "The CLI column runs `vexfs --store DIR snapshot create NAME` as a new process "
        "(start-up, store open, snapshot, exit). "
     << cli_note << "\n\n"
     << Goals(results, json) << "\n";
  return md.str();
}

int Main(int argc, char** argv) {
  Options o;
  CLI::App app{"Snapshot cost of a one-file change against git, for growing stores"};
  app.add_option("--sizes", o.sizes, "store sizes in files")->delimiter(',');
  app.add_option("--reps", o.reps, "one-file-change rounds per size (median)");
  app.add_option("--first-reps", o.first_reps,
                 "fresh stores/repositories per size (median), one value per size")
      ->delimiter(',');
  app.add_option("--per-dir", o.per_dir, "files per directory");
  app.add_option("--batch", o.batch, "files per Edit when filling the store");
  app.add_option("--dir", o.dir, "scratch directory (data of both sides lives here)");
  app.add_option("--cli", o.cli, "path of the vexfs binary, for the CLI column");
  app.add_option("--markdown", o.markdown, "write the results section to this file");
  app.add_flag("--keep", o.keep, "keep the stores and repositories (faster: no deletion)");
  CLI11_PARSE(app, argc, argv);
  if (o.sizes.empty() || o.reps < 1 || o.first_reps.empty()) return 2;
  for (int n : o.first_reps) {
    if (n < 1) return 2;
  }

  IsolateGitConfig();
  if (!GitAvailable()) {
    std::cerr << "error: git is needed as the baseline\n";
    return 1;
  }
  std::string why;
  bool use_cli = CliTakesSnapshots(o.cli, o.dir + "/cli-probe", &why);
  std::string cli_note = use_cli ? "" : "CLI column not measured: " + why + ".";
  if (!use_cli) Progress("CLI column skipped: " + why);

  std::vector<SizeResult> results;
  nlohmann::json json = {{"bench", "snapshot"}, {"reps", o.reps}, {"cli_used", use_cli},
                         {"cli_note", cli_note}};
  for (size_t k = 0; k < o.sizes.size(); ++k) {
    results.push_back(MeasureSize(o, o.sizes[k], FirstReps(o, k), use_cli));
    json["sizes"].push_back(ToJson(results.back()));
  }
  // Only now: deleting earlier sizes' files would slow file creation for git.
  if (!o.keep) {
    Progress("snapshot: removing stores and repositories");
    for (size_t count : o.sizes) RemoveTree(o.dir + "/snapshot-" + std::to_string(count));
  }
  std::string md = Markdown(o, results, use_cli, cli_note, &json);
  std::cout << FirstTable(results).Text() << "\n" << ChangeTable(results, use_cli).Text();
  Emit(json, md, o.markdown);
  return 0;
}

}  // namespace
}  // namespace vexfs::bench

int main(int argc, char** argv) { return vexfs::bench::Main(argc, argv); }
