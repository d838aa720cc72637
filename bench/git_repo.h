// The baseline the benchmarks compare against: a git working directory driven
// through the git binary, as a user or an agent framework would drive it.
#ifndef VEXFS_BENCH_GIT_REPO_H_
#define VEXFS_BENCH_GIT_REPO_H_

#include <cstdint>
#include <string>
#include <vector>

namespace vexfs::bench {

// Keeps the machine's and the user's git configuration out of the measurement:
// every repository then runs on git's defaults plus what Init() sets.
void IsolateGitConfig();

// Whether a git binary can be run at all.
bool GitAvailable();

class GitRepo {
 public:
  // `dir` is the working directory; it must exist.
  explicit GitRepo(std::string dir) : dir_(std::move(dir)) {}

  const std::string& dir() const { return dir_; }

  // git init with a local identity and automatic gc off, so no commit in a timed
  // series pays for a repack the others did not.
  void Init();
  // Wall seconds of `git add -A && git commit -q -m x`. `config` entries
  // ("core.fsync=all") are passed with -c to both commands.
  double TimedCommit(const std::vector<std::string>& config = {});
  // Moves the repository (.git) to `dir`, so that Init() starts a fresh one
  // without deleting anything.
  void SetAside(const std::string& dir);
  // git gc -q (repacks loose objects into a delta-compressed pack).
  void Gc();
  // Bytes the .git directory occupies on disk.
  uint64_t GitDirBytes() const;

 private:
  std::vector<std::string> Command(const std::vector<std::string>& config,
                                   const std::vector<std::string>& args) const;
  std::string dir_;
};

}  // namespace vexfs::bench

#endif  // VEXFS_BENCH_GIT_REPO_H_
