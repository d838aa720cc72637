// ScopedMount: mount(2) wrappers for the disk-full and read-only tests.
#include "fault/scoped_mount.h"

#include <sched.h>
#include <sys/mount.h>

#include <cerrno>

namespace vexfs::fault {

static std::string SizeOption(uint64_t size_bytes) {
  return "size=" + std::to_string(size_bytes) + ",mode=0755";
}

int ScopedMount::MountTmpfs(const std::string& target, uint64_t size_bytes) {
  if (::mount("tmpfs", target.c_str(), "tmpfs", 0, SizeOption(size_bytes).c_str()) != 0) {
    return errno;
  }
  target_ = target;
  return 0;
}

int ScopedMount::BindReadOnly(const std::string& source, const std::string& target) {
  if (::mount(source.c_str(), target.c_str(), nullptr, MS_BIND, nullptr) != 0) return errno;
  target_ = target;
  // A bind mount takes the source's flags; read-only needs a second, remount step.
  unsigned long flags = MS_BIND | MS_REMOUNT | MS_RDONLY;
  if (::mount(nullptr, target.c_str(), nullptr, flags, nullptr) != 0) {
    int err = errno;
    Unmount();
    return err;
  }
  return 0;
}

int ScopedMount::ResizeTmpfs(uint64_t size_bytes) {
  std::string options = SizeOption(size_bytes);
  if (::mount(nullptr, target_.c_str(), nullptr, MS_REMOUNT, options.c_str()) != 0) {
    return errno;
  }
  return 0;
}

void ScopedMount::Unmount() {
  if (target_.empty()) return;
  if (::umount2(target_.c_str(), 0) != 0) ::umount2(target_.c_str(), MNT_DETACH);
  target_.clear();
}

bool EnterPrivateMountNamespace() {
  if (::unshare(CLONE_NEWNS) != 0) return false;
  // Without this, mounts would still propagate to the parent namespace.
  return ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0;
}

}  // namespace vexfs::fault
