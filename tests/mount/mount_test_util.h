// A real VexFS mount for tests: a fresh store, `vexfs mount -f` as a child
// process, and a clean unmount (or a kill) at the end. Tests then use plain
// system calls on the mount point. Skips the test where /dev/fuse is unusable.
#ifndef VEXFS_TESTS_MOUNT_MOUNT_TEST_UTIL_H_
#define VEXFS_TESTS_MOUNT_MOUNT_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "crash/child_process.h"

namespace vexfs::mount_test {

// Result of running `vexfs ...` to completion.
struct CommandResult {
  int status = -1;  // wait status
  std::string out;
  std::string err;
  bool ok() const;
};

// Runs the vexfs binary ($VEXFS_BIN) with `args`.
CommandResult RunVexfs(const std::vector<std::string>& args);

// True if `path` is a mount point in this process's namespace.
bool IsMountPoint(const std::string& path);

// Reads the whole file through the ordinary read(2) path; "<errno text>" on failure.
std::string ReadPath(const std::string& path);
// Creates or replaces a file with `data` via open/write/close; errno or 0.
int WritePath(const std::string& path, const std::string& data);

class MountTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // Mounts the store with extra `vexfs mount` arguments; fails the test if the
  // mount does not appear within 10 s.
  void Mount(const std::vector<std::string>& extra = {});
  // `vexfs umount`, then waits for the daemon to exit; returns its wait status.
  int Unmount();
  // SIGKILLs the daemon (the mount point is left dangling until Unmount()).
  void KillDaemon();

  std::string P(const std::string& name) const { return mnt_ + "/" + name; }
  const std::string& store() const { return store_; }
  const std::string& mnt() const { return mnt_; }
  pid_t daemon_pid() const { return daemon_ ? daemon_->pid() : -1; }

  // Extra mount arguments every test of a fixture wants.
  virtual std::vector<std::string> DefaultMountArgs() const { return {}; }
  // Extra `vexfs init` arguments (a small map, say).
  virtual std::vector<std::string> InitArgs() const { return {}; }

 private:
  std::unique_ptr<crash::TempDir> dir_;
  std::string store_;
  std::string mnt_;
  std::unique_ptr<crash::ChildProcess> daemon_;
};

}  // namespace vexfs::mount_test

#endif  // VEXFS_TESTS_MOUNT_MOUNT_TEST_UTIL_H_
