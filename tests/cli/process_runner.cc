// Child processes with captured output (see process_runner.h).
#include "cli/process_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>

extern char** environ;

namespace vexfs::cli_test {
namespace {

using Clock = std::chrono::steady_clock;

// A child that exits without reading its stdin must not kill us with SIGPIPE;
// the write fails with EPIPE instead and we stop feeding it.
void IgnoreSigpipeOnce() {
  static std::once_flag once;
  std::call_once(once, [] { ::signal(SIGPIPE, SIG_IGN); });
}

// Our environment with `options` applied, as "KEY=VALUE" strings.
std::vector<std::string> ChildEnvironment(const ProcessOptions& options) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry(*e);
    std::string key = entry.substr(0, entry.find('='));
    bool replaced = options.env.count(key) > 0 ||
                    std::find(options.unset_env.begin(), options.unset_env.end(), key) !=
                        options.unset_env.end();
    if (!replaced) env.push_back(entry);
  }
  for (const auto& [key, value] : options.env) env.push_back(key + "=" + value);
  return env;
}

std::vector<char*> CStrings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

void CloseFd(int* fd) {
  if (*fd >= 0) ::close(*fd);
  *fd = -1;
}

// Appends what is readable on `*fd`; closes it at end of file or on error.
void Drain(int* fd, std::string* sink) {
  char buf[65536];
  ssize_t n = ::read(*fd, buf, sizeof(buf));
  if (n > 0) {
    sink->append(buf, static_cast<size_t>(n));
  } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
    CloseFd(fd);
  }
}

// Writes the next piece of `data`; closes `*fd` when all is written or the
// child stopped reading.
void Feed(int* fd, const std::string& data, size_t* written) {
  size_t piece = std::min<size_t>(data.size() - *written, 65536);
  ssize_t n = ::write(*fd, data.data() + *written, piece);
  if (n > 0) *written += static_cast<size_t>(n);
  if ((n < 0 && errno != EINTR && errno != EAGAIN) || *written == data.size()) CloseFd(fd);
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const ProcessResult& r) {
  os << "command:";
  for (const std::string& a : r.argv) os << " '" << a << "'";
  os << "\nexit code: " << r.exit_code;
  if (r.term_signal != 0) os << " (killed by signal " << r.term_signal << ")";
  if (r.timed_out) os << " (timed out)";
  std::string out = r.out.size() > 4000 ? r.out.substr(0, 4000) + "..." : r.out;
  return os << "\nstdout: [" << out << "]\nstderr: [" << r.err << "]\n";
}

Process::~Process() {
  CloseFds();
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

void Process::CloseFds() {
  CloseFd(&in_fd_);
  CloseFd(&out_fd_);
  CloseFd(&err_fd_);
}

bool Process::Start(const std::vector<std::string>& argv, const ProcessOptions& options,
                    std::string* error) {
  IgnoreSigpipeOnce();
  argv_ = argv;
  options_ = options;
  int in[2], out[2], err[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 ||
      ::pipe2(err, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  // Everything the child needs is built before fork: after it, only
  // async-signal-safe calls are allowed in a multi-threaded parent.
  std::vector<std::string> args = argv;
  std::vector<std::string> env = ChildEnvironment(options);
  std::vector<char*> c_args = CStrings(args);
  std::vector<char*> c_env = CStrings(env);
  const char* cwd = options.cwd.empty() ? nullptr : options.cwd.c_str();
  int out_file = -1;
  if (!options.stdout_path.empty()) {
    out_file = ::open(options.stdout_path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  }
  bool opened = options.stdout_path.empty() || out_file >= 0;
  if (opened) pid_ = ::fork();
  if (!opened || pid_ < 0) {
    *error = std::string(opened ? "fork: " : "open stdout file: ") + std::strerror(errno);
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1], out_file}) {
      if (fd >= 0) ::close(fd);
    }
    return false;
  }
  if (pid_ == 0) {
    ::dup2(in[0], STDIN_FILENO);
    ::dup2(out_file >= 0 ? out_file : out[1], STDOUT_FILENO);
    ::dup2(err[1], STDERR_FILENO);
    ::signal(SIGPIPE, SIG_DFL);  // ignored dispositions survive exec
    if (cwd != nullptr && ::chdir(cwd) != 0) ::_exit(127);
    ::execve(c_args[0], c_args.data(), c_env.data());
    ::_exit(127);
  }
  for (int fd : {in[0], out[1], err[1], out_file}) {
    if (fd >= 0) ::close(fd);
  }
  in_fd_ = in[1];
  out_fd_ = out[0];
  err_fd_ = err[0];
  ::fcntl(in_fd_, F_SETFL, O_NONBLOCK);  // never block on a child that stopped reading
  if (options_.stdin_data.empty()) CloseFd(&in_fd_);
  return true;
}

ProcessResult Process::Finish() {
  ProcessResult result;
  result.argv = argv_;
  if (pid_ <= 0) return result;
  Clock::time_point deadline = Clock::now() + options_.timeout;
  size_t written = 0;
  while (in_fd_ >= 0 || out_fd_ >= 0 || err_fd_ >= 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      ::kill(pid_, SIGKILL);
      result.timed_out = true;
      break;
    }
    pollfd fds[3] = {{in_fd_, POLLOUT, 0}, {out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
    int rc = ::poll(fds, 3, static_cast<int>(left.count()));
    if (rc < 0 && errno != EINTR) break;
    if (rc <= 0) continue;
    if (fds[0].revents != 0) Feed(&in_fd_, options_.stdin_data, &written);
    if (fds[1].revents != 0) Drain(&out_fd_, &result.out);
    if (fds[2].revents != 0) Drain(&err_fd_, &result.err);
  }
  CloseFds();
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.term_signal = WTERMSIG(status);
  return result;
}

ProcessResult RunProcess(const std::vector<std::string>& argv, const ProcessOptions& options) {
  Process process;
  std::string error;
  if (!process.Start(argv, options, &error)) {
    ProcessResult result;
    result.argv = argv;
    result.err = error;
    return result;
  }
  return process.Finish();
}

}  // namespace vexfs::cli_test
