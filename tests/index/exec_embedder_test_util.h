// Shared by the exec embedder tests: the fake embedder's command and vectors, and
// a fixture that fails a test which leaves a child process or a descriptor behind.
#ifndef VEXFS_TESTS_INDEX_EXEC_EMBEDDER_TEST_UTIL_H_
#define VEXFS_TESTS_INDEX_EXEC_EMBEDDER_TEST_UTIL_H_

#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "index/embedders/exec_embedder.h"
#include "test_util.h"

namespace vexfs::index::exec_test {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

// The shell command that runs fake_embedder with `args` (its build path holds no
// character the shell would interpret).
inline std::string Fake(std::string_view args) {
  return std::string(VEXFS_FAKE_EMBEDDER) + " " + std::string(args);
}

// The vector fake_embedder gives `text`: byte length, then the bytes cycling.
inline std::vector<float> Expected(std::string_view text, uint32_t dim) {
  std::vector<float> v(dim, 0.0f);
  v[0] = static_cast<float>(text.size());
  for (uint32_t i = 1; i < dim && !text.empty(); ++i) {
    v[i] = static_cast<unsigned char>(text[(i - 1) % text.size()]);
  }
  return v;
}

inline int OpenFdCount() {
  int count = 0;
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) return -1;
  while (dirent* e = ::readdir(dir)) count += e->d_name[0] != '.';
  ::closedir(dir);
  return count - 1;  // the directory's own descriptor
}

// Fails unless no child of this process exists, running or zombie.
inline void ExpectNoChildren() {
  int status = 0;
  errno = 0;
  pid_t r = ::waitpid(-1, &status, WNOHANG);
  EXPECT_EQ(r, -1) << "a child process remains: pid " << r;
  EXPECT_EQ(errno, ECHILD);
}

// Waits (up to 5 s) until some child has exited, leaving it unreaped.
inline bool WaitForAChildToExit() {
  for (int i = 0; i < 500; ++i) {
    siginfo_t info{};
    if (::waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid != 0) {
      return true;
    }
    std::this_thread::sleep_for(milliseconds(10));
  }
  return false;
}

// The pids fake_embedder recorded in a --starts file, one per start.
inline std::vector<pid_t> Starts(const std::string& file) {
  std::vector<pid_t> pids;
  std::ifstream in(file);
  std::string word;
  for (pid_t pid; in >> word >> pid;) pids.push_back(pid);
  return pids;
}

// True once `pid` has ended: gone, or a zombie waiting for its (other) parent.
inline bool ProcessEnded(pid_t pid) {
  for (int i = 0; i < 200; ++i) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string pid_field, comm, state;
    if (!(stat >> pid_field >> comm >> state) || state == "Z" || state == "X") return true;
    std::this_thread::sleep_for(milliseconds(10));
  }
  return false;
}

class ExecEmbedderTest : public ::testing::Test {
 protected:
  void SetUp() override { fds_at_start_ = OpenFdCount(); }
  void TearDown() override {
    ExpectNoChildren();
    EXPECT_EQ(OpenFdCount(), fds_at_start_) << "a descriptor leaked";
  }

  // A started embedder for fake_embedder `args`, or null (and a test failure).
  static std::unique_ptr<ExecEmbedder> Started(std::string_view args,
                                               milliseconds timeout = milliseconds(10000)) {
    auto embedder = std::make_unique<ExecEmbedder>(Fake(args), timeout);
    Status s = embedder->Start();
    EXPECT_TRUE(s.ok()) << s.ToString();
    return s.ok() ? std::move(embedder) : nullptr;
  }

  // Embeds `texts`, expecting a kIOError whose message holds `fragment`; checks
  // that `out` is untouched and that the process was killed and reaped.
  static void ExpectFailure(Embedder* embedder, const std::vector<std::string_view>& texts,
                            std::string_view fragment) {
    std::vector<float> out = {42.0f, -1.0f};
    Status s = embedder->Embed(texts, &out);
    EXPECT_EQ(s.code(), StatusCode::kIOError) << s.ToString();
    EXPECT_NE(s.message().find(fragment), std::string::npos)
        << "'" << s.message() << "' lacks '" << fragment << "'";
    EXPECT_NE(s.message().find("embedder command '"), std::string::npos) << s.message();
    EXPECT_EQ(out, (std::vector<float>{42.0f, -1.0f})) << "a failed batch changed the output";
    ExpectNoChildren();
  }

  int fds_at_start_ = 0;
};

}  // namespace vexfs::index::exec_test

#endif  // VEXFS_TESTS_INDEX_EXEC_EMBEDDER_TEST_UTIL_H_
