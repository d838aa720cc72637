// File, descriptor and string sinks and sources for USXF streams.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

#include "common/file_util.h"
#include "vexfs/usxf_io.h"

namespace vexfs::usxf {
namespace {
constexpr size_t kBufferSize = 1 << 20;
// Pieces at least this large go to write(2) directly; copying them into the
// buffer first would cost more than the system call it saves.
constexpr size_t kDirectWrite = 64 << 10;

std::string DirOf(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
}
}  // namespace

AtomicFileSink::AtomicFileSink(std::string path, std::string tmp, int fd)
    : path_(std::move(path)), tmp_(std::move(tmp)), fd_(fd) {}

Result<std::unique_ptr<AtomicFileSink>> AtomicFileSink::Create(const std::string& path, mode_t mode) {
  // A name nobody can predict, created exclusively: a planted symlink or another
  // writer of the same path can never receive these bytes.
  std::random_device entropy;
  for (int attempt = 0; attempt < 16; ++attempt) {
    std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(entropy());
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd >= 0) return std::unique_ptr<AtomicFileSink>(new AtomicFileSink(path, tmp, fd));
    if (errno != EEXIST) return ErrnoStatus("create " + tmp);
  }
  return Status::IOError("cannot create a temporary file beside " + path);
}

AtomicFileSink::~AtomicFileSink() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(tmp_.c_str());
  }
}

Status AtomicFileSink::WriteAll(std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoStatus("write " + tmp_);
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return Status::Ok();
}

Status AtomicFileSink::Flush() {
  Status st = WriteAll(buffer_);
  buffer_.clear();
  return st;
}

Status AtomicFileSink::Write(std::string_view bytes) {
  if (fd_ < 0) return Status::InvalidArgument("sink already committed");
  const bool direct = bytes.size() >= kDirectWrite;
  if (direct || buffer_.size() + bytes.size() > kBufferSize) VEXFS_RETURN_IF_ERROR(Flush());
  if (direct) return WriteAll(bytes);
  buffer_.append(bytes);
  return Status::Ok();
}

Status AtomicFileSink::SetMode(mode_t mode) {
  if (::fchmod(fd_, mode) != 0) return ErrnoStatus("chmod " + tmp_);
  return Status::Ok();
}

Status AtomicFileSink::Commit() {
  VEXFS_RETURN_IF_ERROR(Flush());
  if (::fsync(fd_) != 0) return ErrnoStatus("fsync " + tmp_);
  ::close(fd_);
  fd_ = -1;
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) {
    Status st = ErrnoStatus("rename " + tmp_ + " to " + path_);
    ::unlink(tmp_.c_str());
    return st;
  }
  return SyncDirectory(DirOf(path_));
}

Result<size_t> FdSource::Read(char* buf, size_t n) {
  while (true) {
    ssize_t got = ::read(fd_, buf, n);
    if (got >= 0) return static_cast<size_t>(got);
    if (errno != EINTR) return ErrnoStatus("read");
  }
}

Result<size_t> StringSource::Read(char* buf, size_t n) {
  size_t take = std::min(n, in_.size());
  std::memcpy(buf, in_.data(), take);
  in_.remove_prefix(take);
  return take;
}

}  // namespace vexfs::usxf
