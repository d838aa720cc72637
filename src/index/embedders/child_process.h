// A helper process spoken to over pipes: `/bin/sh -c COMMAND` with its stdin and
// stdout connected to us and its stderr shared with ours (so its diagnostics reach
// the user). The exec embedder uses it; nothing here knows about JSON.
//
// The child runs in a process group of its own, so that killing it also ends
// whatever the shell started (a pipeline, a wrapper script's interpreter) and a
// terminal's Ctrl-C reaches only us: we decide when the child ends.
//
// Every exchange has a deadline, so a child that stops reading or answering costs
// a bounded wait. Our pipe ends are non-blocking and close-on-exec, so no other
// child the host process starts inherits them.
//
// Thread-safety: one thread at a time. SIGPIPE is blocked only in the calling
// thread and only for the duration of a write; the process-wide disposition is
// never changed.
#ifndef VEXFS_INDEX_EMBEDDERS_CHILD_PROCESS_H_
#define VEXFS_INDEX_EMBEDDERS_CHILD_PROCESS_H_

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "vexfs/status.h"

namespace vexfs::index {

class ChildProcess {
 public:
  // A response line longer than this is refused: it bounds what a runaway child
  // can make us buffer.
  static constexpr size_t kMaxLineBytes = size_t{16} << 20;
  // How long the destructor lets a child exit on its own after its stdin closes.
  static constexpr std::chrono::milliseconds kExitGrace{1000};

  // Starts `/bin/sh -c command`. kIOError if the pipes or the process cannot be
  // made. A command that does not exist still starts (the shell reports it on
  // stderr and exits with status 127, which the first exchange reports).
  static Result<std::unique_ptr<ChildProcess>> Start(const std::string& command);

  // Closes the child's stdin, gives it kExitGrace to exit, then kills its process
  // group with SIGKILL. Always reaps it: no zombie and no descriptor remains.
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Writes `input` to the child's stdin while reading its stdout, until `count`
  // complete lines have arrived; appends them, without their '\n', to `lines`.
  // Writing and reading proceed together, so a child that answers each line as
  // it reads cannot fill both pipes and deadlock with us, however large the batch.
  //
  // kIOError, with the child killed and reaped, when: `timeout` passes first
  // ("timed out after N ms ..."); the child closes its stdout or stdin (the
  // message says how it ended: "embedder process exited (status N)" or "... was
  // killed by signal N"); a line exceeds kMaxLineBytes; or the child writes
  // more than `count` lines, or all of them before it has read all of `input`
  // (either way its answers no longer match our questions). Lines already
  // appended stay in `lines`.
  Status Exchange(std::string_view input, size_t count, std::chrono::milliseconds timeout,
                  std::vector<std::string>* lines);

  // Between exchanges: checks that the child is still there and quiet. Ok when
  // it is running and has written nothing unasked, and also ok when it has ended
  // (it is then reaped and alive() is false, so the caller may start another).
  // kIOError, with the child killed, if it wrote output nobody asked for: its
  // next answers would be taken for answers to our next questions.
  Status CheckIdle();

  // Kills the child's process group with SIGKILL and reaps the child. Idempotent.
  void Kill();

  // False once the child has been reaped.
  bool alive() const { return pid_ > 0; }

 private:
  ChildProcess(pid_t pid, int stdin_fd, int stdout_fd)
      : pid_(pid), stdin_fd_(stdin_fd), stdout_fd_(stdout_fd) {}

  struct Transfer;
  // Reads what stdout has and moves complete lines to the transfer's lines.
  Status Receive(Transfer* t);
  // Writes what stdin takes of the rest of the transfer's input.
  Status Send(Transfer* t);
  // Kills and reaps the child, then returns `error`.
  Status Abandon(Status error);
  // Reads what is available into pending_. Sets *eof at end of stream.
  Status ReadAvailable(bool* eof);
  // Moves the complete lines in pending_ to `lines`, at most `count` in total.
  void TakeLines(size_t count, std::vector<std::string>* lines);
  // The child closed a pipe: waits up to kExitGrace for it to exit, reaps it
  // (killing it if it did not exit), and says how it ended.
  std::string ReapAfterClose();
  // Waits up to `grace` for the child to exit; false if it is still running.
  bool WaitForExit(std::chrono::milliseconds grace);
  // Ends the child's group, reaps it and closes our pipe ends. Returns the child's
  // wait status, or -1 if it had already been reaped by someone else.
  int KillAndReap();
  void CloseFds();

  pid_t pid_;        // > 0 until reaped
  int stdin_fd_;     // write end of the child's stdin; -1 once closed
  int stdout_fd_;    // read end of the child's stdout; -1 once closed
  std::string pending_;  // bytes read past the last complete line
};

// "embedder process exited (status N)" or "embedder process was killed by signal
// N", from a wait status; -1 (the status was lost) gives "embedder process ended".
std::string DescribeExit(int wait_status);

}  // namespace vexfs::index

#endif  // VEXFS_INDEX_EMBEDDERS_CHILD_PROCESS_H_
