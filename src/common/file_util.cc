// POSIX file helpers.
#include "common/file_util.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace vexfs {

static std::string ErrnoMessage(int err, std::string_view what) {
  std::string msg(what);
  msg += ": ";
  msg += std::strerror(err);
  return msg;
}

Status ErrnoToStatus(int err, std::string_view what) {
  std::string msg = ErrnoMessage(err, what);
  switch (err) {
    case ENOSPC:
    case EDQUOT: return Status::NoSpace(msg);
    case EROFS:
    case EACCES:
    case EPERM: return Status::ReadOnly(msg);
    case ENOENT: return Status::NotFound(msg);
    case EAGAIN: return Status::Busy(msg);  // EWOULDBLOCK too: the same value on Linux
    default: return Status::IOError(msg);
  }
}

Status ErrnoStatus(const std::string& what) { return ErrnoToStatus(errno, what); }

Status OutsideErrnoToStatus(int err, std::string_view what) {
  if (err == ENOENT) return Status::NotFound(ErrnoMessage(err, what));
  return Status::IOError(ErrnoMessage(err, what));
}

static Status WriteAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Status::IOError("short write");
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return Status::Ok();
}

Status WriteFileAtomically(const std::string& path, std::string_view bytes) {
  std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus("create '" + tmp + "'");
  Status st = WriteAll(fd, bytes);
  if (st.ok() && ::fsync(fd) != 0) st = ErrnoStatus("sync '" + tmp + "'");
  if (!st.ok() && st.message() == "short write") st = ErrnoStatus("write '" + tmp + "'");
  ::close(fd);
  if (!st.ok()) {
    ::unlink(tmp.c_str());
    return st;
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) return ErrnoStatus("rename '" + tmp + "'");
  return SyncDirectory(std::filesystem::path(path).parent_path().string());
}

Status SyncDirectory(const std::string& dir) {
  int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return ErrnoStatus("open directory '" + dir + "'");
  // Makes the rename itself durable: until then a crash can undo it.
  Status st = ::fsync(dfd) == 0 ? Status::Ok() : ErrnoStatus("sync directory '" + dir + "'");
  ::close(dfd);
  return st;
}

Result<std::string> ReadWholeFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("open '" + path + "'");
  std::string out;
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      Status st = ErrnoStatus("read '" + path + "'");
      ::close(fd);
      return st;
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

}  // namespace vexfs
