// UnmountedBranchGuard: the mount's branch lock, taken by the store (see mounted_branch.h).
#include "store/mounted_branch.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>

#include "common/file_util.h"

namespace vexfs::internal {

Result<UnmountedBranchGuard> UnmountedBranchGuard::Take(const std::string& store_path,
                                                        std::string_view branch) {
  std::string path = store_path + "/mounts/" + std::string(branch);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    // Never mounted writable: no lock file, no mount to protect.
    if (errno == ENOENT) return UnmountedBranchGuard(-1);
    return ErrnoStatus("open " + path);
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    ::close(fd);
    if (err == EWOULDBLOCK) {
      return Status::Busy("branch '" + std::string(branch) +
                          "' is mounted writable (or its daemon is still finishing); "
                          "unmount it first");
    }
    errno = err;
    return ErrnoStatus("flock " + path);
  }
  return UnmountedBranchGuard(fd);
}

UnmountedBranchGuard::~UnmountedBranchGuard() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace vexfs::internal
