// Keeps a branch that a writable mount serves from being pulled from under it.
//
// A writable mount holds an flock(2) on <store>/mounts/<branch> for as long as
// its daemon runs (src/fuse/mount_lock.h owns that file and says why). A store
// operation that would take a branch's working tree away takes the same lock
// for its length: it fails as busy while a mount holds the branch, and a mount
// starting meanwhile waits or fails busy instead of serving a branch about to go.
#ifndef VEXFS_STORE_MOUNTED_BRANCH_H_
#define VEXFS_STORE_MOUNTED_BRANCH_H_

#include <string>
#include <string_view>

#include "vexfs/status.h"

namespace vexfs::internal {

class UnmountedBranchGuard {
 public:
  // kBusy if a writable mount (or its daemon, still finishing) holds `branch`.
  static Result<UnmountedBranchGuard> Take(const std::string& store_path,
                                           std::string_view branch);
  UnmountedBranchGuard(UnmountedBranchGuard&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  UnmountedBranchGuard& operator=(UnmountedBranchGuard&&) = delete;
  UnmountedBranchGuard(const UnmountedBranchGuard&) = delete;
  ~UnmountedBranchGuard();

 private:
  explicit UnmountedBranchGuard(int fd) : fd_(fd) {}
  int fd_;  // -1: a read-only file system, where no writable mount can be
};

}  // namespace vexfs::internal

#endif  // VEXFS_STORE_MOUNTED_BRANCH_H_
