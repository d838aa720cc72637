// One writable mount per branch of a store.
//
// A writable mount purges the branch's orphans (files unlinked while open) when
// it starts, because no process can still hold them open across a restart. A
// second writable mount of the same branch would purge files the first one is
// still serving, so it is refused. The lock is an flock(2) on
// <store>/mounts/<branch>, which holds the holder's mount point: the kernel
// drops the lock when the daemon exits or dies.
//
// A daemon whose file system is already unmounted is still finishing (flushing,
// closing the index) and holds the lock until it exits. `vexfs umount` waits for
// that, and a new mount waits for a departing daemon a bounded time rather than
// failing as busy.
#ifndef VEXFS_FUSE_MOUNT_LOCK_H_
#define VEXFS_FUSE_MOUNT_LOCK_H_

#include <chrono>
#include <memory>
#include <string>

#include "vexfs/status.h"

namespace vexfs::fuse {

// How long a new mount waits for a daemon that has unmounted but not exited.
inline constexpr std::chrono::milliseconds kDepartingDaemonWait{10000};

class MountLock {
 public:
  // kBusy if another writable mount of `branch` is running (and mounted).
  // `mountpoint` (resolved) is recorded for the next mount and for umount.
  static Result<std::unique_ptr<MountLock>> Acquire(const std::string& store_path,
                                                    const std::string& branch,
                                                    const std::string& mountpoint);
  // Returns once no daemon serving `mountpoint` from the store holds a branch
  // lock; kBusy if one still does after `timeout`.
  static Status AwaitRelease(const std::string& store_path, const std::string& mountpoint,
                             std::chrono::milliseconds timeout);
  ~MountLock();
  MountLock(const MountLock&) = delete;
  MountLock& operator=(const MountLock&) = delete;

 private:
  explicit MountLock(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace vexfs::fuse

#endif  // VEXFS_FUSE_MOUNT_LOCK_H_
