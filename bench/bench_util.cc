// Shared helpers of the benchmarks (see bench_util.h).
#include "bench_util.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <sstream>

extern char** environ;

namespace vexfs::bench {
namespace {

const double kStart = NowSeconds();

// Words for TextContent: common enough that text compresses like real notes.
constexpr const char* kWords[] = {
    "agent",   "memory",  "task",     "result",  "note",    "the",    "a",      "of",
    "and",     "to",      "in",       "is",      "for",     "with",   "on",     "that",
    "plan",    "step",    "observed", "error",   "retry",   "file",   "value",  "tool",
    "call",    "returned", "context", "summary", "user",    "asked",  "because", "then",
    "search",  "found",   "after",    "before",  "state",   "update", "check",  "failed",
    "passed",  "output",  "input",    "model",   "token",   "cache",  "vector", "index",
    "query",   "answer",  "reason",   "goal",    "next",    "done",   "pending", "write",
    "read",    "commit",  "snapshot", "branch",  "restore", "config", "limit",  "budget"};
constexpr size_t kWordCount = sizeof(kWords) / sizeof(kWords[0]);

void CreateDirs(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    std::cerr << "error: create directory '" << dir.string() << "': " << ec.message() << "\n";
    std::exit(1);
  }
}

std::string Pad(const std::string& s, size_t width, bool right) {
  if (s.size() >= width) return s;
  std::string fill(width - s.size(), ' ');
  return right ? fill + s : s + fill;
}

// A cell that reads as a number is right-aligned.
bool Numeric(const std::string& cell) {
  return !cell.empty() && (std::isdigit(static_cast<unsigned char>(cell[0])) || cell[0] == '-');
}

}  // namespace

void Check(const Status& status, std::string_view what) {
  if (status.ok()) return;
  std::cerr << "error: " << what << ": " << status.ToString() << "\n";
  std::exit(1);
}

void DieErrno(std::string_view what) {
  std::cerr << "error: " << what << ": " << std::strerror(errno) << "\n";
  std::exit(1);
}

double NowSeconds() {
  using Clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

double Percentile(std::vector<double> samples, double p) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  size_t at = static_cast<size_t>(p * double(samples.size()));
  return samples[std::min(samples.size() - 1, at)];
}

double Median(std::vector<double> samples) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  size_t mid = samples.size() / 2;
  if (samples.size() % 2 == 1) return samples[mid];
  return (samples[mid - 1] + samples[mid]) / 2;
}

void Progress(const std::string& line) {
  std::fprintf(stderr, "[%7.1fs] %s\n", NowSeconds() - kStart, line.c_str());
}

uint64_t Rng::Next() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::string TextContent(uint64_t seed, size_t size) {
  Rng rng(seed);
  std::string out;
  out.reserve(size + 128);
  while (out.size() < size) {
    size_t words = rng.Between(6, 14);
    out += std::to_string(rng.Next() % 100000);  // a number per line, like a log
    for (size_t i = 0; i < words; ++i) {
      out += ' ';
      out += kWords[rng.Next() % kWordCount];
    }
    out += '\n';
  }
  out.resize(size);
  if (size > 0) out.back() = '\n';
  return out;
}

std::string RandomContent(uint64_t seed, size_t size) {
  Rng rng(seed);
  std::string out(size, '\0');
  for (size_t i = 0; i < size; i += 8) {
    uint64_t v = rng.Next();
    std::memcpy(out.data() + i, &v, std::min<size_t>(8, size - i));
  }
  return out;
}

std::vector<std::string> TreePaths(size_t count, size_t per_dir) {
  size_t dirs = (count + per_dir - 1) / per_dir;
  int depth = 1;
  for (size_t capacity = 10; capacity < dirs; capacity *= 10) ++depth;
  std::vector<std::string> paths;
  paths.reserve(count);
  char name[32];
  for (size_t i = 0; i < count; ++i) {
    std::string digits;
    size_t leaf = i / per_dir;
    for (int level = 0; level < depth; ++level, leaf /= 10) {
      digits.insert(0, "d" + std::to_string(leaf % 10) + "/");
    }
    std::snprintf(name, sizeof(name), "f%03zu.txt", i % per_dir);
    paths.push_back(digits + name);
  }
  return paths;
}

void MakeParentDirs(const std::string& path) {
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) CreateDirs(parent);
}

void WriteFile(const std::string& path, std::string_view data, bool sync) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) DieErrno("open '" + path + "'");
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) DieErrno("write '" + path + "'");
    done += static_cast<size_t>(n);
  }
  if (sync && ::fsync(fd) != 0) DieErrno("fsync '" + path + "'");
  ::close(fd);
}

std::string ReadFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) DieErrno("open '" + path + "'");
  struct stat st;
  if (::fstat(fd, &st) != 0) DieErrno("stat '" + path + "'");
  std::string out(static_cast<size_t>(st.st_size), '\0');
  size_t done = 0;
  while (done < out.size()) {
    ssize_t n = ::read(fd, out.data() + done, out.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) DieErrno("read '" + path + "'");
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  out.resize(done);
  return out;
}

uint64_t DiskUsage(const std::string& path) {
  uint64_t total = 0;
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0) total += uint64_t(st.st_blocks) * 512;
  if (!std::filesystem::is_directory(path)) return total;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(path)) {
    if (::lstat(entry.path().c_str(), &st) == 0) total += uint64_t(st.st_blocks) * 512;
  }
  return total;
}

std::string FreshDir(const std::string& base, const std::string& name) {
  std::filesystem::path dir = std::filesystem::path(base) / name;
  RemoveTree(dir.string());
  CreateDirs(dir);
  return dir.string();
}

void RemoveTree(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
  if (ec) {
    std::cerr << "error: remove '" << path << "': " << ec.message() << "\n";
    std::exit(1);
  }
}

void SyncAll() { ::sync(); }

uint64_t WrittenBytes() {
  FILE* f = std::fopen("/proc/self/io", "r");
  if (f == nullptr) return 0;
  char key[64];
  unsigned long long value = 0, found = 0;
  while (std::fscanf(f, "%63s %llu", key, &value) == 2) {
    if (std::strcmp(key, "write_bytes:") == 0) found = value;
  }
  std::fclose(f);
  return found;
}

int RunProcess(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    errno = rc;
    return -1;
  }
  int wstatus = 0;
  while (::waitpid(pid, &wstatus, 0) < 0) {
    if (errno != EINTR) DieErrno("waitpid");
  }
  return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
}

double TimeProcess(const std::vector<std::string>& argv) {
  double start = NowSeconds();
  int rc = RunProcess(argv);
  double elapsed = NowSeconds() - start;
  if (rc != 0) {
    std::string line;
    for (const std::string& a : argv) line += a + " ";
    std::cerr << "error: '" << line << "' exited with " << rc << "\n";
    std::exit(1);
  }
  return elapsed;
}

std::string Table::Text() const {
  std::vector<size_t> width(header_.size(), 0);
  auto widen = [&](const std::vector<std::string>& row) {
    for (size_t i = 0; i < row.size() && i < width.size(); ++i) {
      width[i] = std::max(width[i], row[i].size());
    }
  };
  widen(header_);
  for (const auto& row : rows_) widen(row);
  std::ostringstream out;
  auto line = [&](const std::vector<std::string>& row, bool header) {
    for (size_t i = 0; i < row.size(); ++i) {
      out << (i ? "  " : "") << Pad(row[i], width[i], !header && Numeric(row[i]));
    }
    out << "\n";
  };
  line(header_, true);
  for (const auto& row : rows_) line(row, false);
  return out.str();
}

std::string Table::Markdown() const {
  std::ostringstream out;
  auto line = [&](const std::vector<std::string>& row) {
    out << "|";
    for (const std::string& cell : row) out << " " << cell << " |";
    out << "\n";
  };
  line(header_);
  out << "|";
  for (size_t i = 0; i < header_.size(); ++i) out << (i ? " ---: |" : " --- |");
  out << "\n";
  for (const auto& row : rows_) line(row);
  return out.str();
}

std::string Fixed(double value, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, value);
  return buf;
}

std::string Millis(double seconds) {
  double ms = seconds * 1000;
  return Fixed(ms, ms < 10 ? 2 : (ms < 100 ? 1 : 0));
}

std::string Ratio(double num, double den) {
  if (den <= 0) return "n/a";
  double r = num / den;
  return Fixed(r, r < 10 ? 2 : 1) + "x";
}

std::string Bytes(uint64_t bytes) {
  double mib = static_cast<double>(bytes) / (1 << 20);
  return Fixed(mib, mib < 10 ? 2 : 1) + " MiB";
}

void Emit(const nlohmann::json& results, const std::string& markdown,
          const std::string& markdown_path) {
  std::cout << results.dump() << std::endl;
  if (markdown_path.empty()) return;
  FILE* f = std::fopen(markdown_path.c_str(), "w");
  if (f == nullptr) DieErrno("open '" + markdown_path + "'");
  std::fwrite(markdown.data(), 1, markdown.size(), f);
  std::fclose(f);
}

}  // namespace vexfs::bench
