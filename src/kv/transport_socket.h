// The TCP plumbing of USXF transfers: an owned descriptor, "host:port" parsing,
// connect and listen, and sends and receives that never wait longer than a
// timeout (every socket here is non-blocking and waited on with poll).
#ifndef VEXFS_KV_TRANSPORT_SOCKET_H_
#define VEXFS_KV_TRANSPORT_SOCKET_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "vexfs/status.h"

namespace vexfs::kv::net {

// Owns a file descriptor; closes it when it goes away.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { Reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  void Reset();

 private:
  int fd_ = -1;
};

// "host:port" or "[v6-address]:port"; an empty host (":7000") means every
// interface when listening. kInvalidArgument names what is malformed.
Result<std::pair<std::string, uint16_t>> SplitHostPort(const std::string& host_port);

// Connects within timeout_ms, trying each address the name resolves to.
Result<Fd> Connect(const std::string& host_port, uint32_t timeout_ms);
// Binds and listens; *bound_port gets the port (useful when asked for port 0).
Result<Fd> Listen(const std::string& host_port, uint16_t* bound_port);
// Accepts one pending connection; *peer gets "address:port" for logs.
Result<Fd> Accept(int listen_fd, std::string* peer);

// Wait without a time limit.
inline constexpr uint32_t kNoTimeout = UINT32_MAX;

// What Wait saw first.
enum class Ready { kReady, kTimeout, kStopped };
// Waits for `events` (POLLIN/POLLOUT) on fd, or for stop_fd (when >= 0) to
// become readable. revents, when not null, gets fd's poll bits.
Result<Ready> Wait(int fd, short events, uint32_t timeout_ms, int stop_fd, short* revents = nullptr);

// Sends all of `bytes`; kIOError when the peer is gone or nothing moved for
// timeout_ms. Never raises SIGPIPE.
Status SendAll(int fd, std::string_view bytes, uint32_t timeout_ms);
// Up to n bytes; 0 only when the peer closed its side. kIOError on a reset, on
// timeout_ms without a byte, or when stop_fd becomes readable (message "stopped").
Result<size_t> RecvSome(int fd, char* buf, size_t n, uint32_t timeout_ms, int stop_fd = -1);
// Exactly n bytes; a peer that closes first is a kIOError naming `what`.
Status RecvExactly(int fd, char* buf, size_t n, uint32_t timeout_ms, std::string_view what,
                   int stop_fd = -1);

}  // namespace vexfs::kv::net

#endif  // VEXFS_KV_TRANSPORT_SOCKET_H_
