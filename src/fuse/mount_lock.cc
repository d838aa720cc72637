// MountLock: flock(2) on <store>/mounts/<branch> (see mount_lock.h).
#include "fuse/mount_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <thread>

#include "common/file_util.h"
#include "fuse/mount_table.h"

namespace vexfs::fuse {
namespace {

constexpr std::chrono::milliseconds kPollInterval{20};

// The mount point a lock file records ("" if none yet).
std::string RecordedMountpoint(int fd) {
  std::string text;
  char buf[4096];
  ssize_t n;
  for (off_t off = 0; (n = ::pread(fd, buf, sizeof(buf), off)) > 0; off += n) {
    text.append(buf, static_cast<size_t>(n));
  }
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

// Tries the lock every kPollInterval until `timeout`; true once held.
bool LockWithin(int fd, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK || std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(kPollInterval);
  }
  return true;
}

Status BusyError(const std::string& branch, const std::string& holder) {
  std::string where = holder.empty() ? "" : " at '" + holder + "'";
  return Status::Busy("branch '" + branch + "' is already mounted writable from this store" +
                      where + "; unmount it first, or mount another branch, or mount with -o ro");
}

}  // namespace

Result<std::unique_ptr<MountLock>> MountLock::Acquire(const std::string& store_path,
                                                      const std::string& branch,
                                                      const std::string& mountpoint) {
  std::string dir = store_path + "/mounts";
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return ErrnoStatus("mkdir " + dir);
  std::string path = dir + "/" + branch;
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus("open " + path);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    std::string holder = RecordedMountpoint(fd);
    // Unmounted but not yet exited: the holder is on its way out.
    bool departing = err == EWOULDBLOCK && !holder.empty() && !VexfsStoreMountedAt(holder);
    if (!departing || !LockWithin(fd, kDepartingDaemonWait)) {
      ::close(fd);
      if (err == EWOULDBLOCK) return BusyError(branch, holder);
      errno = err;
      return ErrnoStatus("flock " + path);
    }
  }
  std::string record = mountpoint + "\n";
  if (::ftruncate(fd, 0) != 0 ||
      ::pwrite(fd, record.data(), record.size(), 0) != static_cast<ssize_t>(record.size())) {
    Status st = ErrnoStatus("write " + path);
    ::close(fd);
    return st;
  }
  return std::unique_ptr<MountLock>(new MountLock(fd));
}

Status MountLock::AwaitRelease(const std::string& store_path, const std::string& mountpoint,
                               std::chrono::milliseconds timeout) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(store_path + "/mounts", ec)) {
    int fd = ::open(entry.path().c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    bool ours = RecordedMountpoint(fd) == mountpoint;
    bool released = !ours || LockWithin(fd, timeout);
    ::close(fd);  // also drops the lock if this call took it
    if (!released) {
      return Status::Busy("unmounted '" + mountpoint + "', but its daemon still holds branch '" +
                          entry.path().filename().string() + "' after " +
                          std::to_string(timeout.count() / 1000) + " s");
    }
  }
  return Status::Ok();
}

MountLock::~MountLock() { ::close(fd_); }

}  // namespace vexfs::fuse
