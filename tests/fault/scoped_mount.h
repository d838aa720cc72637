// Mounts for the hostile-environment tests (a tiny tmpfs, a read-only bind
// mount), undone by the destructor. Mounting needs CAP_SYS_ADMIN; callers skip
// when it is refused with EPERM.
#ifndef VEXFS_TESTS_FAULT_SCOPED_MOUNT_H_
#define VEXFS_TESTS_FAULT_SCOPED_MOUNT_H_

#include <cstdint>
#include <string>

namespace vexfs::fault {

class ScopedMount {
 public:
  ScopedMount() = default;
  ~ScopedMount() { Unmount(); }
  ScopedMount(const ScopedMount&) = delete;
  ScopedMount& operator=(const ScopedMount&) = delete;

  // Each returns 0 or the errno of the failed mount(2); `target` must exist.
  int MountTmpfs(const std::string& target, uint64_t size_bytes);
  int BindReadOnly(const std::string& source, const std::string& target);
  // Changes the size of the mounted tmpfs.
  int ResizeTmpfs(uint64_t size_bytes);
  // Detaches lazily if something still holds the mount busy.
  void Unmount();

 private:
  std::string target_;
};

// Moves this process into a private mount namespace, so that mounts made by a
// test vanish with it even if it dies before its destructors run. Best effort:
// false if the kernel refused.
bool EnterPrivateMountNamespace();

}  // namespace vexfs::fault

#endif  // VEXFS_TESTS_FAULT_SCOPED_MOUNT_H_
