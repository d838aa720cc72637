// Child process over pipes: spawn, exchange lines under a deadline, reap.
#include "index/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>
#include <utility>

extern char** environ;

namespace vexfs::index {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr size_t kIoChunk = size_t{64} << 10;

Status SystemError(const std::string& what) {
  return Status::IOError(what + ": " + std::strerror(errno));
}

// Owns a descriptor until released.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }
  void reset(int fd) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

// A pipe end numbered 0-2 (possible when the host closed its stdio) would be
// clobbered by, or survive as, the child's stdin/stdout redirection; moving every
// end above 2 makes the two dup2()s in the child independent of each other.
Status MoveAboveStdio(Fd* fd) {
  if (fd->get() > STDERR_FILENO) return Status::Ok();
  int moved = ::fcntl(fd->get(), F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
  if (moved < 0) return SystemError("fcntl");
  fd->reset(moved);
  return Status::Ok();
}

// Close-on-exec, so no other program the host starts inherits our ends.
Status MakePipe(Fd* read_end, Fd* write_end) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return SystemError("pipe");
  read_end->reset(fds[0]);
  write_end->reset(fds[1]);
  VEXFS_RETURN_IF_ERROR(MoveAboveStdio(read_end));
  return MoveAboveStdio(write_end);
}

Status SetNonBlocking(int fd) {
  int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) return SystemError("fcntl");
  return Status::Ok();
}

// The child gets an empty signal mask, SIGPIPE at its default action (the host
// may ignore it, and an ignored disposition survives exec), and a process group
// of its own.
Result<pid_t> Spawn(const std::string& command, int child_stdin, int child_stdout) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, child_stdin, STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, child_stdout, STDOUT_FILENO);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
  char* argv[] = {const_cast<char*>("sh"), const_cast<char*>("-c"),
                  const_cast<char*>(command.c_str()), nullptr};
  pid_t pid = -1;
  int rc = ::posix_spawn(&pid, "/bin/sh", &actions, &attr, argv, environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return Status::IOError(std::string("cannot start /bin/sh: ") + std::strerror(rc));
  return pid;
}

// write() that cannot kill the process. Writing to a pipe nobody reads raises
// SIGPIPE, whose default action ends the whole host process, and a library may
// not change the process-wide disposition. So SIGPIPE is blocked in this thread
// for the write and, if the write raised it, consumed before the old mask
// returns. A SIGPIPE that was already pending belongs to someone else: left alone.
ssize_t WriteWithoutSigpipe(int fd, const char* data, size_t size) {
  sigset_t pipe_only, old_mask, pending;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  sigpending(&pending);
  bool was_pending = sigismember(&pending, SIGPIPE) == 1;
  pthread_sigmask(SIG_BLOCK, &pipe_only, &old_mask);
  ssize_t n = ::write(fd, data, size);
  int err = errno;
  if (n < 0 && err == EPIPE && !was_pending) {
    const timespec no_wait{0, 0};
    while (sigtimedwait(&pipe_only, nullptr, &no_wait) < 0 && errno == EINTR) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  errno = err;
  return n;
}

// Whole milliseconds left until `deadline`, rounded up; <= 0 once it has passed.
int RemainingMs(Clock::time_point deadline) {
  auto left = std::chrono::ceil<milliseconds>(deadline - Clock::now()).count();
  return static_cast<int>(std::min<decltype(left)>(left, 1 << 30));
}

std::string LinePosition(size_t got, size_t count) {
  return "response line " + std::to_string(got + 1) + " of " + std::to_string(count);
}

}  // namespace

std::string DescribeExit(int wait_status) {
  if (wait_status != -1 && WIFEXITED(wait_status)) {
    return "embedder process exited (status " + std::to_string(WEXITSTATUS(wait_status)) + ")";
  }
  if (wait_status != -1 && WIFSIGNALED(wait_status)) {
    return "embedder process was killed by signal " + std::to_string(WTERMSIG(wait_status));
  }
  return "embedder process ended";
}

Result<std::unique_ptr<ChildProcess>> ChildProcess::Start(const std::string& command) {
  Fd stdin_read, stdin_write, stdout_read, stdout_write;
  VEXFS_RETURN_IF_ERROR(MakePipe(&stdin_read, &stdin_write));
  VEXFS_RETURN_IF_ERROR(MakePipe(&stdout_read, &stdout_write));
  VEXFS_RETURN_IF_ERROR(SetNonBlocking(stdin_write.get()));
  VEXFS_RETURN_IF_ERROR(SetNonBlocking(stdout_read.get()));
  VEXFS_ASSIGN_OR_RETURN(pid_t pid, Spawn(command, stdin_read.get(), stdout_write.get()));
  // stdin_read and stdout_write close here: the child holds its own copies, and
  // only then does its exit show as end of stream on our side.
  return std::unique_ptr<ChildProcess>(
      new ChildProcess(pid, stdin_write.release(), stdout_read.release()));
}

ChildProcess::~ChildProcess() {
  if (stdin_fd_ >= 0) {
    ::close(stdin_fd_);  // end of input asks a well-behaved child to exit
    stdin_fd_ = -1;
  }
  if (alive()) WaitForExit(kExitGrace);
  KillAndReap();
}

Status ChildProcess::Exchange(std::string_view input, size_t count, milliseconds timeout,
                              std::vector<std::string>* lines) {
  if (!alive()) return Status::IOError("embedder process is not running");
  const Clock::time_point deadline = Clock::now() + timeout;
  const size_t first = lines->size();
  size_t written = 0;
  while (lines->size() - first < count) {
    size_t got = lines->size() - first;
    int wait_ms = RemainingMs(deadline);
    if (wait_ms <= 0) {
      KillAndReap();
      return Status::IOError("timed out after " + std::to_string(timeout.count()) +
                             " ms waiting for " + LinePosition(got, count));
    }
    pollfd fds[2] = {{stdout_fd_, POLLIN, 0}, {stdin_fd_, POLLOUT, 0}};
    nfds_t nfds = written < input.size() ? 2 : 1;
    int ready = ::poll(fds, nfds, wait_ms);
    if (ready < 0 && errno != EINTR) {
      Status s = SystemError("poll");
      KillAndReap();
      return s;
    }
    if (ready <= 0) continue;  // the loop's top reports a timeout
    if (fds[0].revents != 0) {
      bool eof = false;
      VEXFS_RETURN_IF_ERROR(ReadAvailable(&eof));
      VEXFS_RETURN_IF_ERROR(TakeLines(count - got, lines));
      if (eof && lines->size() - first < count) {
        return Status::IOError(ReapAfterClose() + " before " +
                               LinePosition(lines->size() - first, count));
      }
    }
    if (nfds == 2 && fds[1].revents != 0) {
      size_t size = std::min(kIoChunk, input.size() - written);
      ssize_t n = WriteWithoutSigpipe(stdin_fd_, input.data() + written, size);
      if (n > 0) {
        written += static_cast<size_t>(n);
      } else if (errno == EPIPE) {
        return Status::IOError(ReapAfterClose() + " before reading all its input (at " +
                               LinePosition(lines->size() - first, count) + ")");
      } else if (errno != EAGAIN && errno != EINTR) {
        Status s = SystemError("write to embedder process");
        KillAndReap();
        return s;
      }
    }
  }
  if (!pending_.empty() || written < input.size()) {
    KillAndReap();
    return Status::IOError(!pending_.empty()
                               ? "embedder process wrote more than " + std::to_string(count) +
                                     " response lines"
                               : "embedder process answered before reading all its input");
  }
  return Status::Ok();
}

Status ChildProcess::CheckIdle() {
  if (!alive()) return Status::Ok();
  pollfd fd = {stdout_fd_, POLLIN, 0};
  int ready;
  do {
    ready = ::poll(&fd, 1, 0);
  } while (ready < 0 && errno == EINTR);
  if (ready > 0) {
    bool eof = false;
    VEXFS_RETURN_IF_ERROR(ReadAvailable(&eof));
    if (!pending_.empty()) {
      KillAndReap();
      return Status::IOError("embedder process wrote output nobody asked for");
    }
    if (eof) {
      ReapAfterClose();
      return Status::Ok();
    }
  }
  // A grandchild may hold stdout open after the process we started has ended.
  siginfo_t info{};
  if (::waitid(P_PID, pid_, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid_) {
    KillAndReap();
  }
  return Status::Ok();
}

void ChildProcess::Kill() { KillAndReap(); }

Status ChildProcess::ReadAvailable(bool* eof) {
  char buf[kIoChunk];
  ssize_t n = ::read(stdout_fd_, buf, sizeof buf);
  if (n > 0) {
    pending_.append(buf, static_cast<size_t>(n));
  } else if (n == 0) {
    *eof = true;
  } else if (errno != EAGAIN && errno != EINTR) {
    Status s = SystemError("read from embedder process");
    KillAndReap();
    return s;
  }
  return Status::Ok();
}

Status ChildProcess::TakeLines(size_t count, std::vector<std::string>* lines) {
  size_t start = 0;
  for (size_t taken = 0; taken < count; ++taken) {
    size_t newline = pending_.find('\n', start);
    if (newline == std::string::npos) break;
    lines->emplace_back(pending_, start, newline - start);
    start = newline + 1;
  }
  pending_.erase(0, start);
  if (pending_.size() > kMaxLineBytes) {
    KillAndReap();
    return Status::IOError("embedder process wrote a line longer than " +
                           std::to_string(kMaxLineBytes) + " bytes");
  }
  return Status::Ok();
}

std::string ChildProcess::ReapAfterClose() {
  bool exited = WaitForExit(kExitGrace);
  int status = KillAndReap();
  if (!exited) return "embedder process closed its pipes but did not exit (killed)";
  return DescribeExit(status);
}

bool ChildProcess::WaitForExit(milliseconds grace) {
  const Clock::time_point deadline = Clock::now() + grace;
  milliseconds nap{1};
  for (;;) {
    // WNOWAIT leaves the child unreaped, so its id (and its group's) stays ours
    // until KillAndReap() has signalled the group.
    siginfo_t info{};
    int r = ::waitid(P_PID, pid_, &info, WEXITED | WNOHANG | WNOWAIT);
    if (r == 0 && info.si_pid == pid_) return true;
    if (r < 0 && errno != EINTR) return true;  // ECHILD: nothing left to wait for
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(nap);
    nap = std::min(nap * 2, milliseconds{20});
  }
}

int ChildProcess::KillAndReap() {
  CloseFds();
  if (pid_ <= 0) return -1;
  // Stragglers the shell started die with it. The group is signalled before the
  // leader is reaped, while its id cannot have been reused.
  ::kill(-pid_, SIGKILL);
  ::kill(pid_, SIGKILL);
  int status = 0;
  pid_t r;
  do {
    r = ::waitpid(pid_, &status, 0);
  } while (r < 0 && errno == EINTR);
  pid_ = -1;
  pending_.clear();
  return r > 0 ? status : -1;
}

void ChildProcess::CloseFds() {
  if (stdin_fd_ >= 0) ::close(stdin_fd_);
  if (stdout_fd_ >= 0) ::close(stdout_fd_);
  stdin_fd_ = stdout_fd_ = -1;
}

}  // namespace vexfs::index
