// The git baseline (see git_repo.h).
#include "git_repo.h"

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "bench_util.h"

namespace vexfs::bench {

void IsolateGitConfig() {
  ::setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
  ::setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
  ::setenv("GIT_TERMINAL_PROMPT", "0", 1);
}

bool GitAvailable() { return RunProcess({"git", "--version"}) == 0; }

std::vector<std::string> GitRepo::Command(const std::vector<std::string>& config,
                                          const std::vector<std::string>& args) const {
  std::vector<std::string> argv = {"git", "-C", dir_};
  for (const std::string& c : config) {
    argv.push_back("-c");
    argv.push_back(c);
  }
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

void GitRepo::Init() {
  TimeProcess(Command({}, {"init", "-q"}));
  TimeProcess(Command({}, {"config", "user.name", "bench"}));
  TimeProcess(Command({}, {"config", "user.email", "bench@example.com"}));
  TimeProcess(Command({}, {"config", "gc.auto", "0"}));
  TimeProcess(Command({}, {"config", "commit.gpgsign", "false"}));
}

double GitRepo::TimedCommit(const std::vector<std::string>& config) {
  double add = TimeProcess(Command(config, {"add", "-A"}));
  return add + TimeProcess(Command(config, {"commit", "-q", "-m", "x"}));
}

void GitRepo::SetAside(const std::string& dir) {
  std::string git_dir = dir_ + "/.git";
  if (::rename(git_dir.c_str(), dir.c_str()) != 0) DieErrno("move '" + git_dir + "'");
}

void GitRepo::Gc() { TimeProcess(Command({}, {"gc", "-q"})); }

uint64_t GitRepo::GitDirBytes() const { return DiskUsage(dir_ + "/.git"); }

}  // namespace vexfs::bench
