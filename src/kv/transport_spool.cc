// The receiver's spool: partial and verified streams on disk, and the source
// that replays a partial prefix before continuing from the socket.
#include "kv/transport_spool.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "common/file_util.h"

namespace vexfs::kv {
namespace {

Status MakeDir(const std::string& path) {
  if (::mkdir(path.c_str(), 0700) == 0 || errno == EEXIST) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return Status::Ok();
    return Status::NotDirectory("spool: " + path + " is not a directory");
  }
  return ErrnoStatus("create spool directory " + path);
}

Status WriteAllAt(int fd, const char* data, size_t n, uint64_t offset) {
  while (n > 0) {
    ssize_t w = ::pwrite(fd, data, n, static_cast<off_t>(offset));
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return ErrnoStatus("write to the spool");
    data += w;
    n -= static_cast<size_t>(w);
    offset += static_cast<uint64_t>(w);
  }
  return Status::Ok();
}

}  // namespace

Result<Spool> Spool::Open(const std::string& dir) {
  if (dir.empty()) return Status::InvalidArgument("no spool directory given");
  VEXFS_RETURN_IF_ERROR(MakeDir(dir));
  VEXFS_RETURN_IF_ERROR(MakeDir(dir + "/partial"));
  VEXFS_RETURN_IF_ERROR(MakeDir(dir + "/verified"));
  const std::string lock_path = dir + "/lock";
  auto lock = std::make_shared<net::Fd>(::open(lock_path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!lock->valid()) return ErrnoStatus("open " + lock_path);
  // Two receivers appending to one partial file would interleave their bytes.
  if (::flock(lock->get(), LOCK_EX | LOCK_NB) != 0) {
    return Status::Busy("spool " + dir + " is in use by another receiver");
  }
  Spool spool;
  spool.dir_ = dir;
  spool.lock_ = std::move(lock);
  return spool;
}

std::string Spool::PartialPath(const TransferId& id) const {
  return dir_ + "/partial/" + TransferIdHex(id) + ".part";
}

std::string Spool::VerifiedPath(const TransferId& id) const {
  return dir_ + "/verified/" + TransferIdHex(id) + ".usxf";
}

bool Spool::HasVerified(const TransferId& id, uint64_t total) const {
  struct stat st {};
  return ::lstat(VerifiedPath(id).c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
         static_cast<uint64_t>(st.st_size) == total;
}

Result<net::Fd> Spool::OpenPartial(const TransferId& id, uint64_t total, uint64_t* held) const {
  const std::string path = PartialPath(id);
  net::Fd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd.valid()) return ErrnoStatus("open " + path);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return ErrnoStatus("stat " + path);
  *held = static_cast<uint64_t>(st.st_size);
  if (*held > total) {
    if (::ftruncate(fd.get(), 0) != 0) return ErrnoStatus("truncate " + path);
    *held = 0;
  }
  return fd;
}

Result<std::string> Spool::Promote(int partial_fd, const TransferId& id) const {
  if (::fsync(partial_fd) != 0) return ErrnoStatus("fsync " + PartialPath(id));
  const std::string to = VerifiedPath(id);
  if (::rename(PartialPath(id).c_str(), to.c_str()) != 0) return ErrnoStatus("rename to " + to);
  VEXFS_RETURN_IF_ERROR(SyncDirectory(dir_ + "/verified"));
  VEXFS_RETURN_IF_ERROR(SyncDirectory(dir_ + "/partial"));
  return to;
}

void Spool::DiscardPartial(const TransferId& id) const { ::unlink(PartialPath(id).c_str()); }

Result<size_t> SpoolSource::Read(char* buf, size_t n) {
  n = static_cast<size_t>(std::min<uint64_t>(n, p_.total - position_));
  if (n == 0) return size_t{0};
  Result<size_t> got = position_ < p_.held ? ReadPrefix(buf, n) : ReadSocket(buf, n);
  if (!got.ok()) return got;
  position_ += *got;
  if (p_.progress) p_.progress(position_, p_.total);
  return got;
}

Result<size_t> SpoolSource::ReadPrefix(char* buf, size_t n) {
  n = static_cast<size_t>(std::min<uint64_t>(n, p_.held - position_));
  for (;;) {
    ssize_t r = ::pread(p_.partial_fd, buf, n, static_cast<off_t>(position_));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return ErrnoStatus("read the partial stream");
    if (r == 0) return Status::IOError("the partial stream shrank while being read");
    return static_cast<size_t>(r);
  }
}

Result<size_t> SpoolSource::ReadSocket(char* buf, size_t n) {
  Result<size_t> got = net::RecvSome(p_.socket_fd, buf, n, p_.idle_timeout_ms, p_.stop_fd);
  if (got.ok() && *got == 0) {
    got = Status::IOError("the sender closed the connection at byte " + std::to_string(position_) + " of " +
                          std::to_string(p_.total));
  }
  if (!got.ok()) {
    peer_failure_ = got.status();
    return got;
  }
  VEXFS_RETURN_IF_ERROR(WriteAllAt(p_.partial_fd, buf, *got, position_));
  StartWriteback(position_ + *got);
  return got;
}

// The kept stream is synced before its verdict (Spool::Promote); starting the
// disk writes every few MiB as the bytes arrive, rather than all at that
// fsync, lets the disk work while the network does. Only a start: nothing
// waits here, and a failure only leaves the work to the fsync.
void SpoolSource::StartWriteback(uint64_t end) {
  constexpr uint64_t kWritebackStep = 8ull << 20;
  if (end - writeback_from_ < kWritebackStep) return;
  ::sync_file_range(p_.partial_fd, static_cast<off_t>(writeback_from_), static_cast<off_t>(end - writeback_from_),
                    SYNC_FILE_RANGE_WRITE);
  writeback_from_ = end;
}

}  // namespace vexfs::kv
