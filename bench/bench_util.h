// Shared pieces of the benchmarks: timing and medians, deterministic content and
// tree layouts, file and process helpers, and result tables printed for people
// (aligned text) and for docs/BENCHMARKS.md (markdown).
//
// Benchmarks are not library code: any failure ends the process with a message,
// since a number measured after an error would be meaningless.
#ifndef VEXFS_BENCH_BENCH_UTIL_H_
#define VEXFS_BENCH_BENCH_UTIL_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "vexfs/status.h"

namespace vexfs::bench {

// Ends the process with `what` and the status unless `status` is ok.
void Check(const Status& status, std::string_view what);

template <typename T>
T CheckValue(Result<T> result, std::string_view what) {
  Check(result.status(), what);
  return std::move(result).value();
}

// Ends the process with `what` and strerror(errno).
[[noreturn]] void DieErrno(std::string_view what);

// Seconds on a monotonic clock.
double NowSeconds();
// Median of `samples` (mean of the middle two for an even count); 0 if empty.
double Median(std::vector<double> samples);
// The sample at fraction `p` (0..1) of the sorted samples (nearest rank); 0 if empty.
double Percentile(std::vector<double> samples, double p);

// One progress line on stderr, prefixed with the seconds since the process began.
void Progress(const std::string& line);

// splitmix64: tiny, fast and deterministic, so every run builds the same data.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next();
  // Uniform in [lo, hi].
  uint64_t Between(uint64_t lo, uint64_t hi) { return lo + Next() % (hi - lo + 1); }

 private:
  uint64_t state_;
};

// English-like text lines of exactly `size` bytes; compresses about as well as
// notes and logs do. Different seeds give different bytes.
std::string TextContent(uint64_t seed, size_t size);
// `size` incompressible bytes.
std::string RandomContent(uint64_t seed, size_t size);

// Relative paths of `count` files, `per_dir` files to a directory, the directories
// nested ten to a level ("d3/d0/d7/f042.txt"), so depth grows with the log of the
// count as in real trees.
std::vector<std::string> TreePaths(size_t count, size_t per_dir);

// Creates every missing directory above `path`.
void MakeParentDirs(const std::string& path);
// Writes `data` to `path` (created or truncated), with fsync if `sync`.
void WriteFile(const std::string& path, std::string_view data, bool sync);
std::string ReadFile(const std::string& path);
// Bytes the files under `path` occupy on disk (st_blocks, not apparent size).
uint64_t DiskUsage(const std::string& path);
// Removes and recreates `base`/`name`; returns its path.
std::string FreshDir(const std::string& base, const std::string& name);
void RemoveTree(const std::string& path);
// Flushes every dirty page of every filesystem, so that write-back of one phase
// is not billed to the next.
void SyncAll();
// Bytes this process has sent (or dirtied, for the page cache) towards storage:
// write_bytes of /proc/self/io; 0 where that is unavailable.
uint64_t WrittenBytes();

// Runs `argv` (argv[0] looked up in PATH) with stdout and stderr discarded;
// returns its exit status (-1 if it did not exit normally).
int RunProcess(const std::vector<std::string>& argv);
// Runs `argv` and returns its wall time in seconds; ends the process on failure.
double TimeProcess(const std::vector<std::string>& argv);

// A result table: aligned text for the terminal, markdown for the docs.
class Table {
 public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
  void AddRow(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  std::string Text() const;
  std::string Markdown() const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// `value` with `digits` decimals.
std::string Fixed(double value, int digits);
// Milliseconds with precision that suits the magnitude.
std::string Millis(double seconds);
// "12.3x" for num/den.
std::string Ratio(double num, double den);
// "12.3 MiB" style.
std::string Bytes(uint64_t bytes);

// Prints `results` as one JSON line on stdout, and writes `markdown` to
// `markdown_path` when that is not empty.
void Emit(const nlohmann::json& results, const std::string& markdown,
          const std::string& markdown_path);

}  // namespace vexfs::bench

#endif  // VEXFS_BENCH_BENCH_UTIL_H_
