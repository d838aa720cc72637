// The mount against libfuse's own passthrough_ll example over tmpfs and against
// tmpfs directly (the ceiling), on the same workloads in one run, interleaved:
// create+write 4 KiB+close of many files, stat of them, readdir of the directory,
// sequential write and read of a large file, random 4 KiB reads; and, for VexFS
// alone, the time from closing a note to its first appearance in search. With
// --vexfs-before, an earlier vexfs binary runs the same workloads interleaved too,
// so a change is measured before and after in one run.
//
// The VexFS store lives on tmpfs too, so all three keep their bytes in memory and
// the comparison is of the file-system code paths, not of disks.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "bench_util.h"

namespace vexfs::bench {
namespace {

struct Options {
  std::string vexfs = "vexfs";
  std::string vexfs_before;  // optional: an earlier build, measured alongside
  std::string passthrough = "passthrough_ll";
  std::string dir = "/dev/shm";  // its work directory, vexfs-mount-bench, goes here
  size_t files = 10000;
  size_t big_mib = 1024;
  size_t random_reads = 20000;
  size_t notes = 10;
  int reps = 3;
  std::string markdown;
};

struct Target {
  std::string name;
  std::string root;  // where the workloads run
};

bool IsMountPoint(const std::string& path) {
  std::ifstream mounts("/proc/self/mountinfo");
  std::string line;
  while (std::getline(mounts, line)) {
    std::istringstream fields(line);
    std::string id, parent, dev, root, point;
    fields >> id >> parent >> dev >> root >> point;
    if (point == path) return true;
  }
  return false;
}

void Die(const std::string& what) {
  std::fprintf(stderr, "mount_bench: %s\n", what.c_str());
  std::exit(1);
}

void WaitForMount(const std::string& path) {
  for (int i = 0; i < 1000 && !IsMountPoint(path); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (!IsMountPoint(path)) Die("'" + path + "' did not get mounted");
}

// The three targets, mounted; unmounted again by the destructor.
class Targets {
 public:
  explicit Targets(const Options& o) : o_(o) {
    RemoveTree(o.dir);
    std::filesystem::create_directories(o.dir);
    std::string store = o.dir + "/store", vmnt = o.dir + "/mnt-vexfs";
    std::string src = o.dir + "/passthrough-source", pmnt = o.dir + "/mnt-passthrough";
    std::string plain = o.dir + "/tmpfs";
    for (const std::string& d : {vmnt, src, pmnt, plain}) std::filesystem::create_directories(d);
    if (RunProcess({o.vexfs, "init", store}) != 0) Die("vexfs init failed");
    if (RunProcess({o.vexfs, "mount", store, vmnt}) != 0) Die("vexfs mount failed");
    mounts_.push_back(vmnt);
    if (RunProcess({o.passthrough, "-o", "source=" + src, pmnt}) != 0) Die("passthrough_ll failed");
    WaitForMount(pmnt);
    mounts_.push_back(pmnt);
    list_ = {{"vexfs", vmnt}, {"passthrough_ll", pmnt}, {"tmpfs", plain}};
    if (!o.vexfs_before.empty()) {
      std::string bstore = o.dir + "/store-before", bmnt = o.dir + "/mnt-vexfs-before";
      std::filesystem::create_directories(bmnt);
      if (RunProcess({o.vexfs_before, "init", bstore}) != 0) Die("vexfs (before) init failed");
      if (RunProcess({o.vexfs_before, "mount", bstore, bmnt}) != 0) {
        Die("vexfs (before) mount failed");
      }
      mounts_.push_back(bmnt);
      list_.push_back({"vexfs-before", bmnt});
    }
  }
  ~Targets() {
    for (const std::string& m : mounts_) RunProcess({"fusermount3", "-u", m});
    RemoveTree(o_.dir);
  }
  const std::vector<Target>& list() const { return list_; }

 private:
  const Options& o_;
  std::vector<std::string> mounts_;
  std::vector<Target> list_;
};

// A buffer of `size` random bytes whose every 4 KiB page is stamped with
// (seed, block, page), so no two pages of any run are equal (no dedup help).
void FillBlock(std::string* buf, const std::string& pool, uint64_t seed, uint64_t block) {
  buf->assign(pool);
  for (size_t page = 0; page + 16 <= buf->size(); page += 4096) {
    uint64_t stamp[2] = {seed, block * 1000003 + page};
    std::memcpy(buf->data() + page, stamp, sizeof(stamp));
  }
}

double CreateFiles(const std::string& dir, size_t n) {
  std::filesystem::create_directories(dir);
  std::string data = RandomContent(7, 4096);
  double start = NowSeconds();
  for (size_t i = 0; i < n; ++i) {
    std::string path = dir + "/f" + std::to_string(i);
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || ::write(fd, data.data(), data.size()) != 4096 || ::close(fd) != 0) {
      Die("create " + path + ": " + std::strerror(errno));
    }
  }
  return NowSeconds() - start;
}

double StatFiles(const std::string& dir, size_t n) {
  double start = NowSeconds();
  struct stat st {};
  for (size_t i = 0; i < n; ++i) {
    if (::stat((dir + "/f" + std::to_string(i)).c_str(), &st) != 0) Die("stat failed");
  }
  return NowSeconds() - start;
}

double ReadDir(const std::string& dir, size_t n) {
  double start = NowSeconds();
  DIR* d = ::opendir(dir.c_str());
  if (!d) Die("opendir " + dir);
  size_t count = 0;
  while (::readdir(d)) ++count;
  ::closedir(d);
  double t = NowSeconds() - start;
  if (count < n) Die("readdir saw " + std::to_string(count) + " entries");
  return t;
}

double SeqWrite(const std::string& path, size_t mib, const std::string& pool, uint64_t seed) {
  std::string block;
  double start = NowSeconds();
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) Die("open " + path);
  for (size_t i = 0; i < mib; ++i) {
    FillBlock(&block, pool, seed, i);
    if (::write(fd, block.data(), block.size()) != static_cast<ssize_t>(block.size())) {
      Die("write " + path + ": " + std::strerror(errno));
    }
  }
  if (::close(fd) != 0) Die("close " + path);
  return NowSeconds() - start;
}

// Drops clean page-cache pages (root only) so reads go to the file system.
void DropCaches() {
  std::ofstream drop("/proc/sys/vm/drop_caches");
  if (drop) drop << "3\n";
}

double SeqRead(const std::string& path, size_t mib) {
  DropCaches();
  std::string buf(1 << 20, '\0');
  double start = NowSeconds();
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) Die("open " + path);
  size_t total = 0;
  ssize_t n;
  while ((n = ::read(fd, buf.data(), buf.size())) > 0) total += static_cast<size_t>(n);
  ::close(fd);
  if (total != mib << 20) Die("short read of " + path);
  return NowSeconds() - start;
}

double RandomReads(const std::string& path, size_t mib, size_t reads, uint64_t seed) {
  DropCaches();
  Rng rng(seed);
  char buf[4096];
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) Die("open " + path);
  double start = NowSeconds();
  for (size_t i = 0; i < reads; ++i) {
    off_t at = static_cast<off_t>(rng.Between(0, (mib << 8) - 1)) * 4096;
    if (::pread(fd, buf, sizeof(buf), at) != 4096) Die("pread " + path);
  }
  double t = NowSeconds() - start;
  ::close(fd);
  return t;
}

// Close of a note to its first appearance under .vexfs/search/ (the mount's own
// background indexer with the default embedder, found by the default search mode).
std::vector<double> NoteToSearch(const std::string& root, size_t notes) {
  std::vector<double> out;
  std::filesystem::create_directories(root + "/notes");
  for (size_t i = 0; i < notes; ++i) {
    std::string words = "zephyr" + std::to_string(i) + " quokka" + std::to_string(i) +
                        " marmalade" + std::to_string(i);
    std::string name = "note" + std::to_string(i) + ".txt";
    std::string note = TextContent(i, 3000) + "\n" + words + "\n";
    note.resize(4096, '.');
    WriteFile(root + "/notes/" + name, note, false);
    double closed = NowSeconds();
    std::string link = root + "/.vexfs/search/" + words + "@k=1/01-" + name;
    struct stat st {};
    while (::lstat(link.c_str(), &st) != 0) {
      if (NowSeconds() - closed > 60) Die("note never showed up in search");
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    out.push_back(NowSeconds() - closed);
  }
  return out;
}

using Samples = std::map<std::string, std::map<std::string, std::vector<double>>>;

void RunRep(const Options& o, const Targets& targets, int rep, const std::string& pool,
            Samples* s) {
  for (const Target& t : targets.list()) {
    std::string dir = t.root + "/small-" + std::to_string(rep);
    Progress(t.name + ": create " + std::to_string(o.files) + " files");
    (*s)["create"][t.name].push_back(CreateFiles(dir, o.files));
  }
  // Past every attribute cache (VexFS 0.5 s, passthrough_ll 1 s): stat asks the FS.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  for (const Target& t : targets.list()) {
    (*s)["stat"][t.name].push_back(StatFiles(t.root + "/small-" + std::to_string(rep), o.files));
  }
  for (const Target& t : targets.list()) {
    (*s)["readdir"][t.name].push_back(ReadDir(t.root + "/small-" + std::to_string(rep), o.files));
  }
  for (const Target& t : targets.list()) {
    std::string big = t.root + "/big-" + std::to_string(rep);
    Progress(t.name + ": sequential write of " + std::to_string(o.big_mib) + " MiB");
    (*s)["seq_write"][t.name].push_back(SeqWrite(big, o.big_mib, pool, rep * 10 + 1));
    (*s)["seq_read"][t.name].push_back(SeqRead(big, o.big_mib));
    (*s)["random_read"][t.name].push_back(RandomReads(big, o.big_mib, o.random_reads, rep));
  }
  for (const Target& t : targets.list()) {
    RemoveTree(t.root + "/small-" + std::to_string(rep));
    std::filesystem::remove(t.root + "/big-" + std::to_string(rep));
  }
}

std::string Report(const Options& o, const Samples& s, const std::vector<double>& search,
                   nlohmann::json* json) {
  const bool before = !o.vexfs_before.empty();
  std::vector<std::string> header = {"workload", "vexfs", "passthrough_ll", "tmpfs",
                                     "vexfs / passthrough_ll"};
  if (before) {
    header.insert(header.begin() + 4, "vexfs before");
    header.push_back("before / passthrough_ll");
  }
  Table table(header);
  auto median = [&](const std::string& w, const std::string& t) { return Median(s.at(w).at(t)); };
  double files = static_cast<double>(o.files);
  double mib = static_cast<double>(o.big_mib);
  struct Row {
    std::string key, label;
    bool rate_is_files;  // else MB/s or reads/s
  };
  auto add_time_row = [&](const std::string& key, const std::string& label, double units,
                          const std::string& unit) {
    std::vector<std::string> targets = {"vexfs", "passthrough_ll", "tmpfs"};
    if (before) targets.push_back("vexfs-before");
    std::vector<std::string> row{label};
    for (const std::string& t : targets) {
      double rate = units / median(key, t);
      row.push_back(Fixed(rate, 0) + " " + unit);
      (*json)[key][t] = rate;
    }
    // A ratio of rates: above 1 means VexFS is faster.
    auto ratio = [&](const std::string& t) {
      return Fixed(median(key, "passthrough_ll") / median(key, t), 2);
    };
    row.push_back(ratio("vexfs"));
    if (before) row.push_back(ratio("vexfs-before"));
    table.AddRow(row);
  };
  add_time_row("create", "create + write 4 KiB + close, " + std::to_string(o.files) + " files",
               files, "files/s");
  add_time_row("stat", "stat of " + std::to_string(o.files) + " files (caches expired)", files,
               "stats/s");
  add_time_row("readdir", "readdir of a " + std::to_string(o.files) + "-entry directory", files,
               "entries/s");
  add_time_row("seq_write", "sequential write, " + std::to_string(o.big_mib) + " MiB",
               mib * 1.048576, "MB/s");
  add_time_row("seq_read", "sequential read, " + std::to_string(o.big_mib) + " MiB", mib * 1.048576,
               "MB/s");
  add_time_row("random_read", "random 4 KiB reads", static_cast<double>(o.random_reads), "reads/s");
  std::string md = "Median of " + std::to_string(o.reps) +
                   " interleaved runs; rates (higher is better).\n\n" + table.Markdown();
  Table latency(
      {"close of a 4 KiB note -> first seen in .vexfs/search (ms; default embedder and mode)",
       "median", "max"});
  double max = search.empty() ? 0 : *std::max_element(search.begin(), search.end());
  latency.AddRow({std::to_string(search.size()) + " notes", Millis(Median(search)), Millis(max)});
  (*json)["note_to_search_median_s"] = Median(search);
  (*json)["note_to_search_max_s"] = max;
  md += "\n" + latency.Markdown();
  std::cerr << table.Text() << latency.Text();
  return md;
}

}  // namespace
}  // namespace vexfs::bench

int main(int argc, char** argv) {
  using namespace vexfs::bench;
  Options o;
  CLI::App app{"VexFS mount vs passthrough_ll over tmpfs vs tmpfs"};
  app.add_option("--vexfs", o.vexfs, "vexfs binary");
  app.add_option("--vexfs-before", o.vexfs_before,
                 "An earlier vexfs binary to measure alongside (before/after)");
  app.add_option("--passthrough", o.passthrough, "libfuse's passthrough_ll binary");
  app.add_option("--dir", o.dir, "Where the work directory is made (tmpfs)");
  app.add_option("--files", o.files, "Small files");
  app.add_option("--big-mib", o.big_mib, "Large file size in MiB");
  app.add_option("--random-reads", o.random_reads, "Random 4 KiB reads");
  app.add_option("--notes", o.notes, "Notes timed from close to search");
  app.add_option("--reps", o.reps, "Repetitions (medians reported)");
  app.add_option("--markdown", o.markdown, "Write the tables here");
  CLI11_PARSE(app, argc, argv);
  // Everything goes in a directory of its own, which the run removes: --dir may
  // hold other things.
  o.dir = (std::filesystem::path(o.dir) / "vexfs-mount-bench").string();
  std::string pool = RandomContent(99, 1 << 20);
  Samples samples;
  std::vector<double> search;
  {
    Targets targets(o);
    for (int rep = 0; rep < o.reps; ++rep) RunRep(o, targets, rep, pool, &samples);
    Progress("vexfs: close-to-search latency");
    search = NoteToSearch(targets.list()[0].root, o.notes);
  }
  nlohmann::json json = {{"bench", "mount"}};
  std::string md = Report(o, samples, search, &json);
  Emit(json, md, o.markdown);
  return 0;
}
