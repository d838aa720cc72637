// Runs a program as a child process with exact arguments (no shell), optional
// bytes on stdin and extra environment, and captures its stdout, stderr and exit
// status. Used to test the `vexfs` binary the way a script or an agent calls it.
#ifndef VEXFS_TESTS_CLI_PROCESS_RUNNER_H_
#define VEXFS_TESTS_CLI_PROCESS_RUNNER_H_

#include <sys/types.h>

#include <chrono>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace vexfs::cli_test {

struct ProcessOptions {
  std::string stdin_data;                  // written to the child's stdin, then closed
  std::map<std::string, std::string> env;  // added to (or replacing) ours
  std::vector<std::string> unset_env;      // removed from ours
  std::string cwd;                         // "" keeps ours
  std::string stdout_path;  // "" captures stdout; else it goes to this file
  // A hung child is killed after this, so a broken binary fails a test instead
  // of stalling the whole suite.
  std::chrono::milliseconds timeout{60000};
};

struct ProcessResult {
  int exit_code = -1;   // -1 when the child did not exit normally
  int term_signal = 0;  // the signal that killed it, if any
  bool timed_out = false;
  std::string out;
  std::string err;
  std::vector<std::string> argv;  // for failure messages

  bool ok() const { return exit_code == 0; }
};

// Shows the command, exit status, stdout and stderr in gtest failure output.
std::ostream& operator<<(std::ostream& os, const ProcessResult& r);

// A started child whose output is collected by Finish(). Several may run at once;
// every pipe is close-on-exec so one child never holds another's pipe open.
class Process {
 public:
  Process() = default;
  ~Process();  // kills and reaps a child that was never finished
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  // Starts argv[0] (a path) with `options`. False, with `error` set, if the
  // pipes or fork failed; a failed exec shows up as exit code 127.
  bool Start(const std::vector<std::string>& argv, const ProcessOptions& options,
             std::string* error);
  // Feeds stdin, drains stdout and stderr, and reaps the child.
  ProcessResult Finish();

 private:
  void CloseFds();

  pid_t pid_ = -1;
  int in_fd_ = -1;
  int out_fd_ = -1;
  int err_fd_ = -1;
  ProcessOptions options_;
  std::vector<std::string> argv_;
};

// Start() + Finish(). On a start failure the result has exit_code -1 and the
// reason in `err`.
ProcessResult RunProcess(const std::vector<std::string>& argv,
                         const ProcessOptions& options = {});

}  // namespace vexfs::cli_test

#endif  // VEXFS_TESTS_CLI_PROCESS_RUNNER_H_
