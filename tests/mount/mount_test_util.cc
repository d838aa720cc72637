// MountTest: a store mounted by the real vexfs binary for the length of a test.
#include "mount/mount_test_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

namespace vexfs::mount_test {
namespace {

std::string VexfsBinary() {
  const char* bin = std::getenv("VEXFS_BIN");
  return bin ? bin : "vexfs";
}

}  // namespace

bool CommandResult::ok() const { return WIFEXITED(status) && WEXITSTATUS(status) == 0; }

CommandResult RunVexfs(const std::vector<std::string>& args) {
  crash::TempDir tmp("vexfs-cmd");
  crash::ChildProcess child;
  crash::ChildProcess::Options options;
  options.argv = {VexfsBinary()};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  options.stderr_path = tmp.path() + "/stderr";
  std::string error;
  CommandResult result;
  if (!child.Start(options, &error)) {
    result.err = error;
    return result;
  }
  result.status = child.Wait(std::chrono::seconds(120));
  result.out = child.stdout_text();
  result.err = crash::ReadFileOrEmpty(options.stderr_path);
  return result;
}

bool IsMountPoint(const std::string& path) {
  std::ifstream mounts("/proc/self/mountinfo");
  std::string line;
  while (std::getline(mounts, line)) {
    std::istringstream fields(line);
    std::string id, parent, dev, root, point;
    fields >> id >> parent >> dev >> root >> point;
    if (point == path) return true;
  }
  return false;
}

std::string ReadPath(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::string("<") + std::strerror(errno) + ">";
  std::string out;
  char buf[65536];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
  int err = n < 0 ? errno : 0;
  ::close(fd);
  return err ? std::string("<") + std::strerror(err) + ">" : out;
}

int WritePath(const std::string& path, const std::string& data) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return errno;
  ssize_t n = ::write(fd, data.data(), data.size());
  int err = n < 0 ? errno : (static_cast<size_t>(n) != data.size() ? EIO : 0);
  if (::close(fd) != 0 && err == 0) err = errno;
  return err;
}

void MountTest::SetUp() {
  if (::access("/dev/fuse", R_OK | W_OK) != 0) {
    GTEST_SKIP() << "/dev/fuse is not usable here: " << std::strerror(errno);
  }
  dir_ = std::make_unique<crash::TempDir>("vexfs-mount");
  store_ = dir_->path() + "/store";
  mnt_ = dir_->path() + "/mnt";
  // Other users (permission tests) must be able to reach the mount point.
  ASSERT_EQ(::chmod(dir_->path().c_str(), 0755), 0);
  ASSERT_EQ(::mkdir(mnt_.c_str(), 0755), 0);
  std::vector<std::string> init_args = {"init", store_};
  for (const std::string& a : InitArgs()) init_args.push_back(a);
  CommandResult init = RunVexfs(init_args);
  ASSERT_TRUE(init.ok()) << init.err;
  Mount(DefaultMountArgs());
}

void MountTest::Mount(const std::vector<std::string>& extra) {
  daemon_ = std::make_unique<crash::ChildProcess>();
  crash::ChildProcess::Options options;
  options.argv = {VexfsBinary(), "mount", store_, mnt_, "--foreground"};
  options.argv.insert(options.argv.end(), extra.begin(), extra.end());
  options.stderr_path = dir_->path() + "/daemon.err";
  std::string error;
  ASSERT_TRUE(daemon_->Start(options, &error)) << error;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!IsMountPoint(mnt_)) {
    int status = 0;
    if (::waitpid(daemon_->pid(), &status, WNOHANG) == daemon_->pid()) {
      FAIL() << "vexfs mount exited: " << crash::DescribeWaitStatus(status) << "\n"
             << crash::ReadFileOrEmpty(options.stderr_path);
    }
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the mount did not appear";
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

int MountTest::Unmount() {
  if (IsMountPoint(mnt_)) {
    CommandResult r = RunVexfs({"umount", mnt_});
    EXPECT_TRUE(r.ok()) << r.err;
  }
  if (!daemon_ || !daemon_->running()) return 0;
  bool timed_out = false;
  int status = daemon_->Wait(std::chrono::seconds(20), &timed_out);
  EXPECT_FALSE(timed_out) << "the daemon did not exit after the unmount";
  // Every unmount, by umount or by signal, is a clean shutdown.
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "the daemon ended with " << crash::DescribeWaitStatus(status) << "\n"
      << crash::ReadFileOrEmpty(dir_->path() + "/daemon.err");
  daemon_.reset();
  return status;
}

void MountTest::KillDaemon() {
  ASSERT_TRUE(daemon_ && daemon_->running());
  daemon_->Kill(SIGKILL);
  daemon_->Wait(std::chrono::seconds(10));
  daemon_.reset();
}

void MountTest::TearDown() {
  if (!dir_) return;
  Unmount();
  // Never let TempDir's removal walk into a mount that is still there.
  if (IsMountPoint(mnt_)) dir_->Keep();
}

}  // namespace vexfs::mount_test
