// Spawning `/bin/sh -c COMMAND` with pipes, and SIGPIPE-safe writes.
#include "index/embedders/spawn_pipes.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "common/file_util.h"

extern char** environ;

namespace vexfs::index {
namespace {

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
  if (moved < 0) return OutsideErrnoToStatus(errno, "fcntl");
  fd->reset(moved);
  return Status::Ok();
}

// Close-on-exec, so no other program the host starts inherits our ends.
Status MakePipe(Fd* read_end, Fd* write_end) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return OutsideErrnoToStatus(errno, "pipe");
  read_end->reset(fds[0]);
  write_end->reset(fds[1]);
  VEXFS_RETURN_IF_ERROR(MoveAboveStdio(read_end));
  return MoveAboveStdio(write_end);
}

Status SetNonBlocking(int fd) {
  int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) return OutsideErrnoToStatus(errno, "fcntl");
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
  if (rc != 0) return OutsideErrnoToStatus(rc, "cannot start /bin/sh");
  return pid;
}

}  // namespace

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

Result<PipedChild> SpawnWithPipes(const std::string& command) {
  Fd stdin_read, stdin_write, stdout_read, stdout_write;
  VEXFS_RETURN_IF_ERROR(MakePipe(&stdin_read, &stdin_write));
  VEXFS_RETURN_IF_ERROR(MakePipe(&stdout_read, &stdout_write));
  VEXFS_RETURN_IF_ERROR(SetNonBlocking(stdin_write.get()));
  VEXFS_RETURN_IF_ERROR(SetNonBlocking(stdout_read.get()));
  VEXFS_ASSIGN_OR_RETURN(pid_t pid, Spawn(command, stdin_read.get(), stdout_write.get()));
  // stdin_read and stdout_write close here: the child holds its own copies, and
  // only then does its exit show as end of stream on our side.
  return PipedChild{pid, stdin_write.release(), stdout_read.release()};
}

}  // namespace vexfs::index
