// Child process over pipes: exchanging lines under a deadline, checking it between
// exchanges, ending and reaping it. Starting it is spawn_pipes.cc's job.
#include "index/embedders/child_process.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "common/file_util.h"
#include "index/embedders/spawn_pipes.h"

namespace vexfs::index {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr size_t kIoChunk = size_t{64} << 10;

// Whole milliseconds left until `deadline`, rounded up; <= 0 once it has passed.
int RemainingMs(Clock::time_point deadline) {
  auto left = std::chrono::ceil<milliseconds>(deadline - Clock::now()).count();
  return static_cast<int>(std::min<decltype(left)>(left, 1 << 30));
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
  VEXFS_ASSIGN_OR_RETURN(PipedChild child, SpawnWithPipes(command));
  return std::unique_ptr<ChildProcess>(
      new ChildProcess(child.pid, child.stdin_fd, child.stdout_fd));
}

ChildProcess::~ChildProcess() {
  if (stdin_fd_ >= 0) {
    ::close(stdin_fd_);  // end of input asks a well-behaved child to exit
    stdin_fd_ = -1;
  }
  if (alive()) WaitForExit(kExitGrace);
  KillAndReap();
}

// One exchange in progress.
struct ChildProcess::Transfer {
  std::string_view input;
  size_t written = 0;               // bytes of input the child has been given
  size_t count = 0;                 // lines wanted
  size_t first = 0;                 // lines->size() when the exchange began
  std::vector<std::string>* lines = nullptr;

  size_t received() const { return lines->size() - first; }
  // "response line K of N", K being the next line expected.
  std::string Position() const {
    return "response line " + std::to_string(received() + 1) + " of " + std::to_string(count);
  }
};

Status ChildProcess::Exchange(std::string_view input, size_t count, milliseconds timeout,
                              std::vector<std::string>* lines) {
  if (!alive()) return Status::IOError("embedder process is not running");
  const Clock::time_point deadline = Clock::now() + timeout;
  Transfer t{input, 0, count, lines->size(), lines};
  while (t.received() < count) {
    int wait_ms = RemainingMs(deadline);
    if (wait_ms <= 0) {
      return Abandon(Status::IOError("timed out after " + std::to_string(timeout.count()) +
                                     " ms waiting for " + t.Position()));
    }
    pollfd fds[2] = {{stdout_fd_, POLLIN, 0}, {stdin_fd_, POLLOUT, 0}};
    nfds_t nfds = t.written < input.size() ? 2 : 1;
    int ready = ::poll(fds, nfds, wait_ms);
    if (ready < 0 && errno != EINTR) return Abandon(OutsideErrnoToStatus(errno, "poll"));
    if (ready <= 0) continue;  // the loop's top reports a timeout
    if (fds[0].revents != 0) VEXFS_RETURN_IF_ERROR(Receive(&t));
    if (nfds == 2 && fds[1].revents != 0) VEXFS_RETURN_IF_ERROR(Send(&t));
  }
  // Anything beyond the answers would be taken for answers to the next batch.
  if (!pending_.empty()) {
    return Abandon(Status::IOError("embedder process wrote more than " +
                                   std::to_string(count) + " response lines"));
  }
  if (t.written < input.size()) {
    return Abandon(Status::IOError("embedder process answered before reading all its input"));
  }
  return Status::Ok();
}

Status ChildProcess::Receive(Transfer* t) {
  bool eof = false;
  VEXFS_RETURN_IF_ERROR(ReadAvailable(&eof));
  TakeLines(t->count - t->received(), t->lines);
  if (pending_.size() > kMaxLineBytes) {
    return Abandon(Status::IOError(t->Position() + " is longer than " +
                                   std::to_string(kMaxLineBytes) + " bytes"));
  }
  if (eof && t->received() < t->count) {
    return Status::IOError(ReapAfterClose() + " before " + t->Position());
  }
  return Status::Ok();
}

Status ChildProcess::Send(Transfer* t) {
  size_t size = std::min(kIoChunk, t->input.size() - t->written);
  ssize_t n = WriteWithoutSigpipe(stdin_fd_, t->input.data() + t->written, size);
  if (n > 0) {
    t->written += static_cast<size_t>(n);
  } else if (errno == EPIPE) {
    return Status::IOError(ReapAfterClose() + " before reading all its input (at " +
                           t->Position() + ")");
  } else if (errno != EAGAIN && errno != EINTR) {
    return Abandon(OutsideErrnoToStatus(errno, "write to embedder process"));
  }
  return Status::Ok();
}

Status ChildProcess::Abandon(Status error) {
  KillAndReap();
  return error;
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
      return Abandon(Status::IOError("embedder process wrote output nobody asked for"));
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
    return Abandon(OutsideErrnoToStatus(errno, "read from embedder process"));
  }
  return Status::Ok();
}

void ChildProcess::TakeLines(size_t count, std::vector<std::string>* lines) {
  size_t start = 0;
  for (size_t taken = 0; taken < count; ++taken) {
    size_t newline = pending_.find('\n', start);
    if (newline == std::string::npos) break;
    lines->emplace_back(pending_, start, newline - start);
    start = newline + 1;
  }
  pending_.erase(0, start);
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
