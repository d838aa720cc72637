// A child process for crash and fault tests: started with a pipe on its stdout
// (and optionally on its stdin), stderr captured in a file, killed and reaped
// on destruction so a failing test never leaves a writer running.
#ifndef VEXFS_TESTS_CRASH_CHILD_PROCESS_H_
#define VEXFS_TESTS_CRASH_CHILD_PROCESS_H_

#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace vexfs::crash {

class ChildProcess {
 public:
  struct Options {
    std::vector<std::string> argv{};          // argv[0] is the program path
    std::map<std::string, std::string> env{};  // added to (or replacing) ours
    std::vector<std::string> unset_env{};     // removed from ours
    bool pipe_stdin = false;  // else stdin is /dev/null
    std::string stderr_path{};  // "" means /dev/null
  };

  ChildProcess() = default;
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Starts the program; false (with `error` set) if fork or pipe failed. A failed
  // exec shows up as exit status 127.
  bool Start(const Options& options, std::string* error);

  // Appends to stdout() whatever the child writes until `deadline`, or until it
  // closes its stdout. Returns false once stdout reached end of file.
  bool ReadUntil(std::chrono::steady_clock::time_point deadline);
  // Reads until a complete line containing `needle` arrived; false on timeout/EOF.
  bool WaitForLine(const std::string& needle, std::chrono::milliseconds timeout);
  // Everything read from the child's stdout so far.
  const std::string& stdout_text() const { return out_; }

  // Closes our end of the child's stdin (the child sees end of file).
  void CloseStdin();
  void Kill(int signal);
  // Reaps the child, reading the rest of its stdout first. Returns the wait
  // status; gives up after `timeout` (killing it with SIGKILL) and sets
  // `timed_out`.
  int Wait(std::chrono::milliseconds timeout, bool* timed_out = nullptr);
  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int out_fd_ = -1;
  int in_fd_ = -1;
  std::string out_;
};

// "exited with status 1", "killed by signal 9", ... for failure messages.
std::string DescribeWaitStatus(int status);

// Reads a whole file ("" if it cannot be read).
std::string ReadFileOrEmpty(const std::string& path);

// A fresh directory under $TMPDIR (or /tmp); removed by the destructor unless
// Keep() was called.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  void Keep() { keep_ = true; }

 private:
  std::string path_;
  bool keep_ = false;
};

}  // namespace vexfs::crash

#endif  // VEXFS_TESTS_CRASH_CHILD_PROCESS_H_
