// One writable mount per branch of a store.
//
// A writable mount purges the branch's orphans (files unlinked while open) when
// it starts, because no process can still hold them open across a restart. A
// second writable mount of the same branch would purge files the first one is
// still serving, so it is refused. The lock is an flock(2) on
// <store>/mounts/<branch>: the kernel drops it when the daemon exits or dies.
#ifndef VEXFS_FUSE_MOUNT_LOCK_H_
#define VEXFS_FUSE_MOUNT_LOCK_H_

#include <memory>
#include <string>

#include "vexfs/status.h"

namespace vexfs::fuse {

class MountLock {
 public:
  // kBusy if another writable mount of `branch` is running.
  static Result<std::unique_ptr<MountLock>> Acquire(const std::string& store_path,
                                                    const std::string& branch);
  ~MountLock();
  MountLock(const MountLock&) = delete;
  MountLock& operator=(const MountLock&) = delete;

 private:
  explicit MountLock(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace vexfs::fuse

#endif  // VEXFS_FUSE_MOUNT_LOCK_H_
