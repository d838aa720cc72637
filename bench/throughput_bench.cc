// Measures put/get throughput of small (1 KiB) and large (64 MiB) files through the
// library, side by side with writing and reading the same bytes as plain files
// (write + fsync, or one syncfs for a batch) and, for large reads, memcpy as the
// upper bound. Small puts are measured many to one Edit and one Edit per file,
// since every Edit is a synced transaction.
#include <fcntl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstring>
#include <iostream>
#include <sstream>

#include "bench_util.h"
#include "store_ops.h"

namespace vexfs::bench {
namespace {

struct Options {
  size_t small_count = 10000;
  size_t single_count = 300;
  size_t small_size = 1024;
  size_t large_mib = 64;
  int reps = 5;
  std::string dir = "/tmp/vexfs-bench";
  std::string markdown;
  bool keep = false;
};

// One operation measured on both sides, every repetition doing the same work.
struct Comparison {
  std::string label;
  std::string baseline;  // what the plain-file side does
  size_t files = 0;
  uint64_t bytes = 0;
  std::vector<double> vexfs_s;
  std::vector<double> plain_s;
};

// Pre-generated files for one repetition, so generating them is never timed.
struct FileSet {
  std::vector<std::string> paths;
  std::vector<std::string> data;
  uint64_t bytes = 0;
};

FileSet SmallFiles(const std::string& prefix, size_t count, size_t size, uint64_t seed) {
  FileSet set;
  set.paths = TreePaths(count, 100);
  for (size_t i = 0; i < count; ++i) {
    set.paths[i] = prefix + "/" + set.paths[i];
    set.data.push_back(TextContent(seed * 1000003 + i, size));  // unique: nothing dedupes
    set.bytes += size;
  }
  return set;
}

double PutBatch(Store* store, const FileSet& set) {
  return PutFiles(store, set.paths, [&](size_t i) { return set.data[i]; }, set.paths.size());
}

// Plain files written without sync, then one syncfs: the batch's one durable point.
double WriteBatchPlain(const std::string& root, const FileSet& set) {
  double start = NowSeconds();
  for (size_t i = 0; i < set.paths.size(); ++i) {
    std::string path = root + "/" + set.paths[i];
    if (i % 100 == 0) MakeParentDirs(path);
    WriteFile(path, set.data[i], false);
  }
  int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || ::syncfs(fd) != 0) DieErrno("syncfs '" + root + "'");
  ::close(fd);
  return NowSeconds() - start;
}

double PutEach(Store* store, const FileSet& set) {
  double total = 0;
  for (size_t i = 0; i < set.paths.size(); ++i) {
    total += PutOne(store, set.paths[i], set.data[i]);
  }
  return total;
}

double WriteEachPlain(const std::string& root, const FileSet& set) {
  double start = NowSeconds();
  for (size_t i = 0; i < set.paths.size(); ++i) {
    std::string path = root + "/" + set.paths[i];
    if (i % 100 == 0) MakeParentDirs(path);
    WriteFile(path, set.data[i], true);
  }
  return NowSeconds() - start;
}

// Reads every file in one read transaction (one consistent view).
double GetInOneView(Store* store, const FileSet& set) {
  auto tree = CheckValue(store->Tree(), "open working tree");
  uint64_t got = 0;
  double start = NowSeconds();
  Check(tree->View([&](TreeEditor& editor) -> Status {
    for (const std::string& path : set.paths) {
      VEXFS_ASSIGN_OR_RETURN(uint64_t ino, editor.ResolvePath(path));
      VEXFS_ASSIGN_OR_RETURN(std::string data, editor.Read(ino, 0, uint64_t{1} << 40));
      got += data.size();
    }
    return Status::Ok();
  }),
        "read files");
  double elapsed = NowSeconds() - start;
  if (got != set.bytes) Check(Status::Corruption("short read"), "read files");
  return elapsed;
}

// Reads every file through ReadAll: a path lookup and a read transaction each.
double GetEach(Store* store, const FileSet& set) {
  auto tree = CheckValue(store->Tree(), "open working tree");
  uint64_t got = 0;
  double start = NowSeconds();
  for (const std::string& path : set.paths) {
    got += CheckValue(tree->ReadAll(path), "read file").size();
  }
  double elapsed = NowSeconds() - start;
  if (got != set.bytes) Check(Status::Corruption("short read"), "read files");
  return elapsed;
}

double ReadPlain(const std::string& root, const FileSet& set) {
  uint64_t got = 0;
  double start = NowSeconds();
  for (const std::string& path : set.paths) got += ReadFile(root + "/" + path).size();
  double elapsed = NowSeconds() - start;
  if (got != set.bytes) DieErrno("short plain read");
  return elapsed;
}

// All comparisons, filled repetition by repetition.
struct Results {
  Comparison batch_put, batch_get_view, batch_get_each, single_put, large_put, large_get;
  std::vector<double> memcpy_s;
};

void SmallRound(const Options& o, Store* store, const std::string& plain, int rep,
                Results* r) {
  std::string prefix = "small-" + std::to_string(rep);
  FileSet batch = SmallFiles(prefix, o.small_count, o.small_size, 2 * rep + 1);
  SyncAll();
  r->batch_put.vexfs_s.push_back(PutBatch(store, batch));
  SyncAll();
  r->batch_put.plain_s.push_back(WriteBatchPlain(plain, batch));
  r->batch_get_view.vexfs_s.push_back(GetInOneView(store, batch));
  r->batch_get_each.vexfs_s.push_back(GetEach(store, batch));
  double plain_read = ReadPlain(plain, batch);
  r->batch_get_view.plain_s.push_back(plain_read);
  r->batch_get_each.plain_s.push_back(plain_read);

  FileSet single = SmallFiles("one-" + std::to_string(rep), o.single_count, o.small_size,
                              2 * rep + 2);
  SyncAll();
  r->single_put.vexfs_s.push_back(PutEach(store, single));
  SyncAll();
  r->single_put.plain_s.push_back(WriteEachPlain(plain, single));
}

void LargeRound(const Options& o, Store* store, const std::string& plain, int rep,
                Results* r) {
  std::string data = RandomContent(1000 + rep, o.large_mib << 20);
  std::string name = "large-" + std::to_string(rep) + ".bin";
  SyncAll();
  r->large_put.vexfs_s.push_back(PutOne(store, name, data));
  SyncAll();
  double start = NowSeconds();
  WriteFile(plain + "/" + name, data, true);
  r->large_put.plain_s.push_back(NowSeconds() - start);

  auto tree = CheckValue(store->Tree(), "open working tree");
  start = NowSeconds();
  std::string got = CheckValue(tree->ReadAll(name), "read large file");
  r->large_get.vexfs_s.push_back(NowSeconds() - start);
  if (got != data) Check(Status::Corruption("large file read back differently"), "verify");
  start = NowSeconds();
  got = ReadFile(plain + "/" + name);
  r->large_get.plain_s.push_back(NowSeconds() - start);
  // Copy into memory already touched: no page faults, the pure bandwidth bound.
  start = NowSeconds();
  std::memcpy(got.data(), data.data(), data.size());
  r->memcpy_s.push_back(NowSeconds() - start);
}

Comparison Named(std::string label, std::string baseline, size_t files, uint64_t bytes) {
  Comparison c;
  c.label = std::move(label);
  c.baseline = std::move(baseline);
  c.files = files;
  c.bytes = bytes;
  return c;
}

void Describe(const Options& o, Results* r) {
  uint64_t small = o.small_count * o.small_size;
  uint64_t large = uint64_t(o.large_mib) << 20;
  std::string n = std::to_string(o.small_count);
  std::string mib = std::to_string(o.large_mib);
  r->batch_put = Named("put " + n + " small files, one Edit", "write all, one syncfs",
                       o.small_count, small);
  r->batch_get_view = Named("get " + n + " small files, one View", "open+read+close each",
                            o.small_count, small);
  r->batch_get_each = Named("get " + n + " small files, ReadAll each",
                            "open+read+close each", o.small_count, small);
  r->single_put = Named("put " + std::to_string(o.single_count) + " small files, one Edit each",
                        "write+fsync each", o.single_count, o.single_count * o.small_size);
  r->large_put = Named("put one " + mib + " MiB file", "write+fsync", 1, large);
  r->large_get = Named("get one " + mib + " MiB file (ReadAll)", "read", 1, large);
}

std::string MBps(uint64_t bytes, double seconds) {
  double mbps = bytes / seconds / 1e6;
  return Fixed(mbps, mbps < 1 ? 2 : 1);
}
std::string FilesPs(size_t files, double seconds) { return Fixed(files / seconds, 0); }

Table ResultTable(const Results& r, const Options& o) {
  Table t({"operation", "vexfs MB/s", "vexfs files/s", "plain files", "plain MB/s",
           "plain files/s", "vexfs / plain"});
  for (const Comparison* c : {&r.batch_put, &r.batch_get_view, &r.batch_get_each,
                              &r.single_put, &r.large_put, &r.large_get}) {
    double v = Median(c->vexfs_s), p = Median(c->plain_s);
    t.AddRow({c->label, MBps(c->bytes, v), FilesPs(c->files, v), c->baseline,
              MBps(c->bytes, p), FilesPs(c->files, p), Ratio(p, v)});
  }
  double m = Median(r.memcpy_s);
  uint64_t large = uint64_t(o.large_mib) << 20;
  t.AddRow({"memcpy of the large file (upper bound)", "", "", "memcpy", MBps(large, m), "",
            ""});
  return t;
}

nlohmann::json ToJson(const Comparison& c) {
  return {{"label", c.label},       {"baseline", c.baseline},
          {"files", c.files},       {"bytes", c.bytes},
          {"vexfs_s", c.vexfs_s},   {"plain_s", c.plain_s},
          {"median_vexfs_s", Median(c.vexfs_s)}, {"median_plain_s", Median(c.plain_s)}};
}

std::string Markdown(const Options& o, const Results& r) {
  std::ostringstream md;
  md << "## Put/get throughput against plain files\n\n"
     << "Medians of " << o.reps << " repetitions, each with fresh content so nothing "
     << "dedupes. Small files: " << o.small_size << " bytes of text, 100 to a directory. "
     << "Large file: " << o.large_mib << " MiB of random (incompressible) bytes. "
     << "MB = 10^6 bytes. Reads on both sides come from the page cache. Every vexfs "
        "Edit is a synced LMDB transaction; the plain side syncs with one syncfs per batch "
        "or one fsync per file (the parent directory is not fsynced, so a new plain file "
        "is less durable than a vexfs put). \"vexfs / plain\" is the throughput ratio "
        "(above 1: vexfs is faster).\n\n"
     << ResultTable(r, o).Markdown() << "\n";
  return md.str();
}

int Main(int argc, char** argv) {
  Options o;
  CLI::App app{"put/get throughput of small and large files against plain files"};
  app.add_option("--small-count", o.small_count, "small files per batch");
  app.add_option("--single-count", o.single_count, "small files put one Edit each");
  app.add_option("--small-size", o.small_size, "bytes per small file");
  app.add_option("--large-mib", o.large_mib, "size of the large file in MiB");
  app.add_option("--reps", o.reps, "repetitions (median)");
  app.add_option("--dir", o.dir, "scratch directory");
  app.add_option("--markdown", o.markdown, "write the results section to this file");
  app.add_flag("--keep", o.keep, "keep the store and the plain files");
  CLI11_PARSE(app, argc, argv);
  if (o.reps < 1 || o.small_count < 1 || o.single_count < 1 || o.large_mib < 1) return 2;

  std::string base = FreshDir(o.dir, "throughput");
  std::string plain = FreshDir(base, "plain");
  auto store = CreateStore(base + "/store");
  Results r;
  Describe(o, &r);
  for (int rep = 0; rep < o.reps; ++rep) {
    Progress("throughput: repetition " + std::to_string(rep + 1) + " of " +
             std::to_string(o.reps));
    SmallRound(o, store.get(), plain, rep, &r);
    LargeRound(o, store.get(), plain, rep, &r);
  }
  store.reset();
  if (!o.keep) RemoveTree(base);

  nlohmann::json json = {{"bench", "throughput"}, {"reps", o.reps}};
  for (const Comparison* c : {&r.batch_put, &r.batch_get_view, &r.batch_get_each,
                              &r.single_put, &r.large_put, &r.large_get}) {
    json["results"].push_back(ToJson(*c));
  }
  json["memcpy_s"] = r.memcpy_s;
  std::cout << ResultTable(r, o).Text();
  Emit(json, Markdown(o, r), o.markdown);
  return 0;
}

}  // namespace
}  // namespace vexfs::bench

int main(int argc, char** argv) { return vexfs::bench::Main(argc, argv); }
