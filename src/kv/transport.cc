// The sending side of USXF transfers: transfer ids, and SendFile with its
// reconnect-and-resume loop. The receiver is in transport_receiver.cc and
// transport_connection.cc; the wire format in transport_protocol.cc.
#include "vexfs/kv/transport.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "common/file_util.h"
#include "common/sha256.h"
#include "kv/transport_protocol.h"
#include "kv/transport_socket.h"
#include "usxf/le.h"

namespace vexfs::kv {
namespace {

constexpr size_t kIdTailBytes = 64 << 10;
constexpr size_t kChunk = 1 << 20;
constexpr uint32_t kMaxRetryDelayMs = 8000;

// sendfile(2) has no MSG_NOSIGNAL: a receiver that closed meanwhile would
// raise SIGPIPE and end the sending process without a word. SIGPIPE is held
// blocked in this thread around the call, and one it raised is taken back
// before it is unblocked, so the error comes back as EPIPE instead.
ssize_t SendFileNoSignal(int sock, int fd, off_t* offset, size_t n) {
  sigset_t pipe, old;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  sigset_t pending;
  sigemptyset(&pending);
  sigpending(&pending);
  const bool was_pending = sigismember(&pending, SIGPIPE) == 1;
  pthread_sigmask(SIG_BLOCK, &pipe, &old);
  ssize_t sent = ::sendfile(sock, fd, offset, n);
  const int err = errno;
  if (sent < 0 && err == EPIPE && !was_pending) {
    const timespec now{0, 0};
    while (sigtimedwait(&pipe, nullptr, &now) < 0 && errno == EINTR) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  errno = err;
  return sent;
}

Status ReadAt(int fd, char* buf, size_t n, uint64_t offset, const std::string& what) {
  while (n > 0) {
    ssize_t r = ::pread(fd, buf, n, static_cast<off_t>(offset));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return ErrnoStatus("read " + what);
    if (r == 0) return Status::IOError(what + " shrank while being sent");
    buf += r;
    n -= static_cast<size_t>(r);
    offset += static_cast<uint64_t>(r);
  }
  return Status::Ok();
}

Result<TransferId> IdOfOpenFile(int fd, uint64_t size, const std::string& path) {
  if (size < wire::kMinStreamBytes) {
    return Status::InvalidArgument(path + ": " + std::to_string(size) + " bytes cannot be a USXF file");
  }
  const size_t tail = static_cast<size_t>(std::min<uint64_t>(size, kIdTailBytes));
  std::string bytes(usxf::kPreambleSize + tail, '\0');
  VEXFS_RETURN_IF_ERROR(ReadAt(fd, bytes.data(), usxf::kPreambleSize, 0, path));
  VEXFS_RETURN_IF_ERROR(ReadAt(fd, bytes.data() + usxf::kPreambleSize, tail, size - tail, path));
  Sha256 hash;
  hash.Update(std::string_view("vexfs-transfer-id-v1\0", 21));
  std::string length;
  usxf::AppendLE<uint64_t>(&length, size);
  hash.Update(length);
  hash.Update(bytes);
  TransferId id;
  id = hash.Finish().bytes;
  return id;
}

// The sender's name for the stream: the file's base name, printable, bounded.
std::string StreamName(const std::string& path) {
  const size_t slash = path.rfind('/');
  std::string name = path.substr(slash == std::string::npos ? 0 : slash + 1);
  name.resize(std::min<size_t>(name.size(), wire::kMaxNameLength));
  for (char& c : name) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return name;
}

Result<wire::Message> ReadMessage(int fd, uint32_t timeout_ms) {
  char fixed[wire::kMessageFixedSize];
  VEXFS_RETURN_IF_ERROR(net::RecvExactly(fd, fixed, sizeof(fixed), timeout_ms, "the receiver's answer"));
  uint32_t text_length = 0;
  VEXFS_ASSIGN_OR_RETURN(wire::Message m,
                         wire::DecodeMessageFixed(std::string_view(fixed, sizeof(fixed)), &text_length));
  m.text.resize(text_length);  // bounded by DecodeMessageFixed
  VEXFS_RETURN_IF_ERROR(net::RecvExactly(fd, m.text.data(), text_length, timeout_ms, "the receiver's answer"));
  return m;
}

// One file being sent, over as many connections as it takes.
class Sender {
 public:
  Sender(const SendOptions& options, SendReport* report) : opt_(options), report_(*report) {}

  Status Open(const std::string& path);
  Status Run(const std::string& host_port);

 private:
  Result<wire::Message> Attempt(const std::string& host_port);
  // Sends [offset, total); returns early (ok) when the receiver has spoken,
  // which during the data can only be a refusal.
  Status SendData(int sock, uint64_t offset);
  Status SendPiece(int sock, uint64_t pos, size_t n, bool* receiver_spoke);
  Status Refusal(const wire::Message& verdict) const;

  const SendOptions& opt_;
  SendReport& report_;
  std::string path_;
  net::Fd file_;
  wire::Hello hello_;
};

Status Sender::Open(const std::string& path) {
  path_ = path;
  file_ = net::Fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!file_.valid()) return ErrnoStatus("open " + path);
  struct stat st {};
  if (::fstat(file_.get(), &st) != 0) return ErrnoStatus("stat " + path);
  if (!S_ISREG(st.st_mode)) return Status::InvalidArgument(path + " is not a regular file");
  hello_.total_size = static_cast<uint64_t>(st.st_size);
  VEXFS_ASSIGN_OR_RETURN(hello_.id, IdOfOpenFile(file_.get(), hello_.total_size, path));
  hello_.name = StreamName(path);
  report_.total_bytes = hello_.total_size;
  report_.transfer_id = TransferIdHex(hello_.id);
  return Status::Ok();
}

Status Sender::Run(const std::string& host_port) {
  Status last = Status::InvalidArgument("max_attempts must be at least 1");
  uint32_t delay = opt_.retry_delay_ms;
  for (int attempt = 1; attempt <= opt_.max_attempts; ++attempt) {
    if (attempt > 1) {
      std::this_thread::sleep_for(std::chrono::milliseconds(delay));
      delay = std::min(delay * 2, kMaxRetryDelayMs);
    }
    report_.attempts = attempt;
    Result<wire::Message> verdict = Attempt(host_port);
    if (!verdict.ok()) {
      last = verdict.status();
      if (last.code() != StatusCode::kIOError) return last;  // a bad address does not get better
      continue;
    }
    report_.verdict_received = true;
    report_.receiver_message = verdict->text;
    if (verdict->code == StatusCode::kOk) {
      report_.verified_path = verdict->text;
      return Status::Ok();
    }
    last = Refusal(*verdict);
    if ((verdict->value & wire::kVerdictRetry) == 0) return last;
  }
  return last.WithContext("sending " + path_ + " to " + host_port + ": gave up after " +
                          std::to_string(report_.attempts) + " attempt(s)");
}

Status Sender::Refusal(const wire::Message& verdict) const {
  return Status(verdict.code, "the receiver refused " + hello_.name + ": " + verdict.text);
}

Result<wire::Message> Sender::Attempt(const std::string& host_port) {
  VEXFS_ASSIGN_OR_RETURN(net::Fd sock, net::Connect(host_port, opt_.connect_timeout_ms));
  VEXFS_RETURN_IF_ERROR(net::SendAll(sock.get(), wire::EncodeHello(hello_), opt_.io_timeout_ms));
  VEXFS_ASSIGN_OR_RETURN(wire::Message answer, ReadMessage(sock.get(), opt_.io_timeout_ms));
  if (answer.kind == wire::MessageKind::kVerdict) return answer;  // refused, or verified before
  if (answer.value > hello_.total_size) {
    return Status::Corruption("the receiver asks to resume at byte " + std::to_string(answer.value) +
                              ", beyond the stream's " + std::to_string(hello_.total_size));
  }
  report_.resumed_from = answer.value;
  VEXFS_RETURN_IF_ERROR(SendData(sock.get(), answer.value));
  VEXFS_ASSIGN_OR_RETURN(wire::Message verdict, ReadMessage(sock.get(), opt_.verdict_timeout_ms));
  if (verdict.kind != wire::MessageKind::kVerdict) {
    return Status::Corruption("the receiver answered the data with a second resume offset");
  }
  return verdict;
}

Status Sender::SendData(int sock, uint64_t offset) {
  for (uint64_t pos = offset; pos < hello_.total_size;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kChunk, hello_.total_size - pos));
    bool receiver_spoke = false;
    VEXFS_RETURN_IF_ERROR(SendPiece(sock, pos, n, &receiver_spoke));
    if (receiver_spoke) return Status::Ok();
    pos += n;
    if (opt_.progress) opt_.progress(pos, hello_.total_size);
  }
  return Status::Ok();
}

// Bytes [pos, pos + n) of the file, straight from the page cache to the
// socket (sendfile: no copy through this process, which on a small machine
// shares its cores with the receiver's hashing).
Status Sender::SendPiece(int sock, uint64_t pos, size_t n, bool* receiver_spoke) {
  while (n > 0) {
    short revents = 0;
    VEXFS_ASSIGN_OR_RETURN(net::Ready ready, net::Wait(sock, POLLIN | POLLOUT, opt_.io_timeout_ms, -1, &revents));
    if (ready == net::Ready::kTimeout) {
      return Status::IOError("the receiver took nothing for " + std::to_string(opt_.io_timeout_ms) + " ms");
    }
    // Readable in the middle of the data: the receiver refused the stream early
    // (a bad preamble or header). Stop sending and go read why.
    if ((revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
      *receiver_spoke = true;
      return Status::Ok();
    }
    off_t at = static_cast<off_t>(pos);
    ssize_t sent = SendFileNoSignal(sock, file_.get(), &at, n);
    if (sent < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (sent < 0) return OutsideErrnoToStatus(errno, "send to the receiver");
    if (sent == 0) return Status::IOError(path_ + " shrank while being sent");
    pos += static_cast<uint64_t>(sent);
    n -= static_cast<size_t>(sent);
    report_.bytes_sent += static_cast<uint64_t>(sent);
  }
  return Status::Ok();
}

}  // namespace

std::string TransferIdHex(const TransferId& id) { return usxf::HexOf(id.data(), id.size()); }

Result<TransferId> TransferIdOf(const std::string& path) {
  net::Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return ErrnoStatus("open " + path);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return ErrnoStatus("stat " + path);
  return IdOfOpenFile(fd.get(), static_cast<uint64_t>(st.st_size), path);
}

Status SendFile(const std::string& path, const std::string& host_port, const SendOptions& options,
                SendReport* report) {
  SendReport local;
  SendReport* r = report != nullptr ? report : &local;
  *r = SendReport();
  Sender sender(options, r);
  VEXFS_RETURN_IF_ERROR(sender.Open(path));
  return sender.Run(host_port);
}

}  // namespace vexfs::kv
