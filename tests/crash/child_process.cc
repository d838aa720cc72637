// ChildProcess and TempDir: process plumbing for crash and fault tests.
#include "crash/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

namespace vexfs::crash {
namespace {

// Our environment with `options` applied, as "K=V" strings.
std::vector<std::string> ChildEnvironment(const ChildProcess::Options& options) {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string kv(*e);
    size_t eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const std::string& name : options.unset_env) env.erase(name);
  for (const auto& [k, v] : options.env) env[k] = v;
  std::vector<std::string> out;
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

std::vector<char*> CStrings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Runs in the forked child: only async-signal-safe calls from here on.
[[noreturn]] void ExecChild(int in_fd, int out_fd, int err_fd, char** argv, char** envp) {
  ::dup2(in_fd, STDIN_FILENO);
  ::dup2(out_fd, STDOUT_FILENO);
  ::dup2(err_fd, STDERR_FILENO);
  ::execve(argv[0], argv, envp);
  ::_exit(127);
}

}  // namespace

ChildProcess::~ChildProcess() {
  if (pid_ > 0) {
    Kill(SIGKILL);
    Wait(std::chrono::seconds(10));
  }
  if (out_fd_ >= 0) ::close(out_fd_);
  if (in_fd_ >= 0) ::close(in_fd_);
}

bool ChildProcess::Start(const Options& options, std::string* error) {
  int out_pipe[2];
  int in_pipe[2] = {-1, -1};
  if (::pipe2(out_pipe, O_CLOEXEC) != 0 ||
      (options.pipe_stdin && ::pipe2(in_pipe, O_CLOEXEC) != 0)) {
    *error = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  int child_in = options.pipe_stdin ? in_pipe[0] : ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  const std::string err_path = options.stderr_path.empty() ? "/dev/null" : options.stderr_path;
  int err_fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  std::vector<std::string> args = options.argv;
  std::vector<std::string> env = ChildEnvironment(options);
  std::vector<char*> argv = CStrings(args);
  std::vector<char*> envp = CStrings(env);
  pid_ = ::fork();
  if (pid_ == 0) ExecChild(child_in, out_pipe[1], err_fd, argv.data(), envp.data());
  int fork_errno = errno;
  ::close(out_pipe[1]);
  ::close(child_in);
  ::close(err_fd);
  out_fd_ = out_pipe[0];
  in_fd_ = in_pipe[1];
  out_.clear();
  if (pid_ < 0) {
    *error = std::string("fork: ") + std::strerror(fork_errno);
    return false;
  }
  return true;
}

bool ChildProcess::ReadUntil(std::chrono::steady_clock::time_point deadline) {
  while (out_fd_ >= 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd p{out_fd_, POLLIN, 0};
    int n = ::poll(&p, 1, left.count() > 0 ? static_cast<int>(left.count()) : 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;  // deadline passed
    char buf[4096];
    ssize_t got = ::read(out_fd_, buf, sizeof(buf));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      ::close(out_fd_);
      out_fd_ = -1;
      return false;
    }
    out_.append(buf, static_cast<size_t>(got));
  }
  return false;
}

bool ChildProcess::WaitForLine(const std::string& needle, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    size_t at = out_.find(needle);
    if (at != std::string::npos && out_.find('\n', at) != std::string::npos) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    // Short slices so a line is noticed as soon as it arrives.
    bool open = ReadUntil(std::min(deadline, std::chrono::steady_clock::now() +
                                                 std::chrono::milliseconds(20)));
    if (!open && out_.find(needle) == std::string::npos) return false;
  }
}

void ChildProcess::CloseStdin() {
  if (in_fd_ >= 0) ::close(in_fd_);
  in_fd_ = -1;
}

void ChildProcess::Kill(int signal) {
  if (pid_ > 0) ::kill(pid_, signal);
}

int ChildProcess::Wait(std::chrono::milliseconds timeout, bool* timed_out) {
  if (timed_out != nullptr) *timed_out = false;
  if (pid_ <= 0) return -1;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  while (true) {
    pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_ || (r < 0 && errno != EINTR)) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      if (timed_out != nullptr) *timed_out = true;
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
      break;
    }
    // Keep draining stdout so a chatty child cannot block on a full pipe.
    ReadUntil(std::chrono::steady_clock::now() + std::chrono::milliseconds(5));
  }
  pid_ = -1;
  ReadUntil(std::chrono::steady_clock::now() + std::chrono::milliseconds(200));
  return status;
}

std::string DescribeWaitStatus(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
           ::strsignal(WTERMSIG(status)) + ")";
  }
  return "wait status " + std::to_string(status);
}

std::string ReadFileOrEmpty(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TempDir::TempDir(const std::string& prefix) {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/" + prefix + "XXXXXX";
  if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
}

TempDir::~TempDir() {
  if (keep_ || path_.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace vexfs::crash
