// UnmountedBranchGuard: the mount's branch lock, taken by the store (see mounted_branch.h).
#include "store/mounted_branch.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "common/file_util.h"

namespace vexfs::internal {

Result<UnmountedBranchGuard> UnmountedBranchGuard::Take(const std::string& store_path,
                                                        std::string_view branch) {
  // Made if missing, as the mount makes it: a mount starting meanwhile must
  // find this lock taken, not make a file of its own beside it.
  std::string dir = store_path + "/mounts";
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    // A read-only file system holds no writable mount to protect.
    if (errno == EROFS) return UnmountedBranchGuard(-1);
    return ErrnoStatus("mkdir " + dir);
  }
  std::string path = dir + "/" + std::string(branch);
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    if (errno == EROFS) return UnmountedBranchGuard(-1);
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
