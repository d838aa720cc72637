// Several writer processes on one mount while the CLI searches and snapshots the
// same store: no lost update, no deadlock (everything must finish in time).
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <sstream>
#include <thread>

#include "mount/mount_test_util.h"

namespace vexfs::mount_test {
namespace {

constexpr int kWriters = 4;
constexpr int kFilesEach = 120;

std::string FileContent(int writer, int i) {
  return "writer " + std::to_string(writer) + " note " + std::to_string(i) +
         ": deploy checklists and release notes for service " + std::to_string(i % 7) + "\n";
}

// A child process: its own directory of files, plus lines appended to one shared
// file. Exits 0 only if every call succeeded.
int RunWriter(const std::string& mnt, int w) {
  std::string dir = mnt + "/w" + std::to_string(w);
  if (::mkdir(dir.c_str(), 0755) != 0) return 1;
  for (int i = 0; i < kFilesEach; ++i) {
    if (WritePath(dir + "/f" + std::to_string(i), FileContent(w, i)) != 0) return 2;
    int fd = ::open((mnt + "/shared.log").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0) return 3;
    std::string line = "w" + std::to_string(w) + " " + std::to_string(i) + "\n";
    bool ok = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
    if (::close(fd) != 0 || !ok) return 4;
    if (i % 40 == 39) {
      // Rewrite an earlier file in place: the last write must win.
      if (WritePath(dir + "/f0", FileContent(w, 0) + "revised\n") != 0) return 5;
    }
  }
  return 0;
}

class ConcurrencyTest : public MountTest {};

TEST_F(ConcurrencyTest, WritersAndCliTogetherLoseNothing) {
  std::vector<pid_t> writers;
  for (int w = 0; w < kWriters; ++w) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) ::_exit(RunWriter(mnt(), w));
    writers.push_back(pid);
  }
  // The CLI works on the mounted store meanwhile: searches (which also index)
  // and snapshots, and searches through the mount itself.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(180);
  int running = kWriters, snapshots = 0;
  std::vector<int> statuses(kWriters, -1);
  while (running > 0) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "writers did not finish: deadlock?";
    CommandResult search = RunVexfs({"--store", store(), "search", "release notes", "-k", "3"});
    EXPECT_TRUE(search.ok()) << search.err;
    CommandResult snap = RunVexfs(
        {"--store", store(), "snapshot", "create", "during-" + std::to_string(snapshots++)});
    EXPECT_TRUE(snap.ok()) << snap.err;
    struct stat st {};
    ::stat(P(".vexfs/search/deploy checklists").c_str(), &st);
    for (int w = 0; w < kWriters; ++w) {
      if (statuses[w] != -1) continue;
      int status = 0;
      if (::waitpid(writers[w], &status, WNOHANG) == writers[w]) {
        statuses[w] = status;
        --running;
      }
    }
  }
  for (int w = 0; w < kWriters; ++w) {
    EXPECT_TRUE(WIFEXITED(statuses[w]) && WEXITSTATUS(statuses[w]) == 0)
        << "writer " << w << " failed: " << statuses[w];
  }
  for (int w = 0; w < kWriters; ++w) {
    for (int i = 0; i < kFilesEach; ++i) {
      std::string want = FileContent(w, i) + (i == 0 ? "revised\n" : "");
      EXPECT_EQ(ReadPath(P("w" + std::to_string(w) + "/f" + std::to_string(i))), want);
    }
  }
  // Every appended line is there once, each writer's in its order.
  std::istringstream log(ReadPath(P("shared.log")));
  std::string line;
  std::vector<int> next(kWriters, 0);
  int lines = 0;
  while (std::getline(log, line)) {
    int w = -1, i = -1;
    ASSERT_EQ(std::sscanf(line.c_str(), "w%d %d", &w, &i), 2) << line;
    ASSERT_GE(w, 0);
    ASSERT_LT(w, kWriters);
    EXPECT_EQ(i, next[w]++) << "writer " << w << "'s lines out of order";
    ++lines;
  }
  EXPECT_EQ(lines, kWriters * kFilesEach);
  CommandResult fsck = RunVexfs({"--store", store(), "fsck"});
  EXPECT_TRUE(fsck.ok()) << fsck.out << fsck.err;
  EXPECT_GT(snapshots, 0);
}

}  // namespace
}  // namespace vexfs::mount_test
