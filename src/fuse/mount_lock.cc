// MountLock: flock(2) on <store>/mounts/<branch> (see mount_lock.h).
#include "fuse/mount_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "common/file_util.h"

namespace vexfs::fuse {

Result<std::unique_ptr<MountLock>> MountLock::Acquire(const std::string& store_path,
                                                      const std::string& branch) {
  std::string dir = store_path + "/mounts";
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return ErrnoStatus("mkdir " + dir);
  std::string path = dir + "/" + branch;
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus("open " + path);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    ::close(fd);
    if (err == EWOULDBLOCK) {
      return Status::Busy("branch '" + branch +
                          "' is already mounted writable from this store; unmount it first, "
                          "or mount another branch, or mount with -o ro");
    }
    errno = err;
    return ErrnoStatus("flock " + path);
  }
  return std::unique_ptr<MountLock>(new MountLock(fd));
}

MountLock::~MountLock() { ::close(fd_); }

}  // namespace vexfs::fuse
