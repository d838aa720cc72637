// The operating-system plumbing under ChildProcess: starting `/bin/sh -c
// COMMAND` with its stdin and stdout on pipes, and writing to a pipe without
// SIGPIPE. Kept apart so child_process.cc reads as the protocol-free exchange
// logic it is.
#ifndef VEXFS_INDEX_EMBEDDERS_SPAWN_PIPES_H_
#define VEXFS_INDEX_EMBEDDERS_SPAWN_PIPES_H_

#include <sys/types.h>

#include <cstddef>
#include <string>

#include "vexfs/status.h"

namespace vexfs::index {

// A started child and our ends of its pipes, which the caller now owns.
struct PipedChild {
  pid_t pid = -1;
  int stdin_fd = -1;   // write end of the child's stdin; non-blocking, close-on-exec
  int stdout_fd = -1;  // read end of the child's stdout; non-blocking, close-on-exec
};

// Starts `/bin/sh -c command` in a process group of its own (pgid == pid), with
// an empty signal mask, SIGPIPE at its default action, stderr shared with ours.
// kIOError if a pipe or the process cannot be made; nothing is left open then.
Result<PipedChild> SpawnWithPipes(const std::string& command);

// write(2) that cannot raise SIGPIPE in the host process: a reader that has gone
// gives -1 with errno EPIPE, nothing else. Safe with other threads; changes no
// process-wide signal state.
ssize_t WriteWithoutSigpipe(int fd, const char* data, size_t size);

}  // namespace vexfs::index

#endif  // VEXFS_INDEX_EMBEDDERS_SPAWN_PIPES_H_
