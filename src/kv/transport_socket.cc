// Non-blocking TCP sockets with poll-based timeouts for USXF transfers.
#include "kv/transport_socket.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <memory>

#include "common/file_util.h"

namespace vexfs::kv::net {
namespace {

struct AddrInfoFree {
  void operator()(addrinfo* ai) const { ::freeaddrinfo(ai); }
};
using AddrInfoPtr = std::unique_ptr<addrinfo, AddrInfoFree>;

Result<AddrInfoPtr> Resolve(const std::string& host, uint16_t port, bool passive) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = passive ? AI_PASSIVE : AI_ADDRCONFIG;
  addrinfo* out = nullptr;
  const std::string service = std::to_string(port);
  int rc = ::getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, &out);
  if (rc != 0) return Status::NotFound("cannot resolve '" + host + "': " + ::gai_strerror(rc));
  return AddrInfoPtr(out);
}

std::string Describe(const sockaddr* sa) {
  char host[INET6_ADDRSTRLEN] = "?";
  uint16_t port = 0;
  if (sa->sa_family == AF_INET) {
    auto* in = reinterpret_cast<const sockaddr_in*>(sa);
    ::inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
    port = ntohs(in->sin_port);
    return std::string(host) + ":" + std::to_string(port);
  }
  auto* in6 = reinterpret_cast<const sockaddr_in6*>(sa);
  ::inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
  port = ntohs(in6->sin6_port);
  return "[" + std::string(host) + "]:" + std::to_string(port);
}

// One non-blocking connect to one address, waited on for at most timeout_ms.
Result<Fd> ConnectOne(const addrinfo* ai, uint32_t timeout_ms) {
  Fd fd(::socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol));
  if (!fd.valid()) return OutsideErrnoToStatus(errno, "socket");
  if (::connect(fd.get(), ai->ai_addr, ai->ai_addrlen) == 0) return fd;
  if (const int err = errno; err != EINPROGRESS) {  // read before Describe runs
    return OutsideErrnoToStatus(err, "connect to " + Describe(ai->ai_addr));
  }
  VEXFS_ASSIGN_OR_RETURN(Ready ready, Wait(fd.get(), POLLOUT, timeout_ms, -1));
  if (ready == Ready::kTimeout) {
    return Status::IOError("connect to " + Describe(ai->ai_addr) + ": no answer within " +
                           std::to_string(timeout_ms) + " ms");
  }
  int err = 0;
  socklen_t len = sizeof(err);
  ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len);
  if (err != 0) return OutsideErrnoToStatus(err, "connect to " + Describe(ai->ai_addr));
  return fd;
}

}  // namespace

Fd& Fd::operator=(Fd&& other) noexcept {
  if (this != &other) {
    Reset();
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

void Fd::Reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Result<std::pair<std::string, uint16_t>> SplitHostPort(const std::string& host_port) {
  const size_t colon = host_port.rfind(':');
  if (colon == std::string::npos) {
    return Status::InvalidArgument("address '" + host_port + "' has no port (expected HOST:PORT)");
  }
  std::string host = host_port.substr(0, colon);
  const std::string port = host_port.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.find(':') != std::string::npos && host_port.front() != '[') {
    return Status::InvalidArgument("address '" + host_port + "': write an IPv6 address as [ADDR]:PORT");
  }
  char* end = nullptr;
  const unsigned long value = std::strtoul(port.c_str(), &end, 10);
  if (port.empty() || *end != '\0' || value > 65535) {
    return Status::InvalidArgument("address '" + host_port + "': port '" + port + "' is not 0..65535");
  }
  return std::make_pair(host, static_cast<uint16_t>(value));
}

Result<Fd> Connect(const std::string& host_port, uint32_t timeout_ms) {
  VEXFS_ASSIGN_OR_RETURN(auto hp, SplitHostPort(host_port));
  if (hp.first.empty() || hp.second == 0) {
    return Status::InvalidArgument("address '" + host_port + "': a host and a non-zero port are needed");
  }
  VEXFS_ASSIGN_OR_RETURN(AddrInfoPtr list, Resolve(hp.first, hp.second, false));
  Status last = Status::NotFound("'" + hp.first + "' resolves to no address");
  for (const addrinfo* ai = list.get(); ai != nullptr; ai = ai->ai_next) {
    Result<Fd> fd = ConnectOne(ai, timeout_ms);
    if (fd.ok()) return fd;
    last = fd.status();
  }
  return last;
}

Result<Fd> Listen(const std::string& host_port, uint16_t* bound_port) {
  VEXFS_ASSIGN_OR_RETURN(auto hp, SplitHostPort(host_port));
  VEXFS_ASSIGN_OR_RETURN(AddrInfoPtr list, Resolve(hp.first, hp.second, true));
  const addrinfo* ai = list.get();
  Fd fd(::socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol));
  if (!fd.valid()) return OutsideErrnoToStatus(errno, "socket");
  // A restarted receiver must get its port back while old connections linger.
  int one = 1;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (::bind(fd.get(), ai->ai_addr, ai->ai_addrlen) != 0) return OutsideErrnoToStatus(errno, "bind " + host_port);
  if (::listen(fd.get(), 16) != 0) return OutsideErrnoToStatus(errno, "listen on " + host_port);
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  if (::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    return OutsideErrnoToStatus(errno, "getsockname");
  }
  *bound_port = addr.ss_family == AF_INET ? ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port)
                                          : ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port);
  return fd;
}

Result<Fd> Accept(int listen_fd, std::string* peer) {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  Fd fd(::accept4(listen_fd, reinterpret_cast<sockaddr*>(&addr), &len, SOCK_NONBLOCK | SOCK_CLOEXEC));
  if (!fd.valid()) return OutsideErrnoToStatus(errno, "accept");
  *peer = Describe(reinterpret_cast<const sockaddr*>(&addr));
  return fd;
}

Result<Ready> Wait(int fd, short events, uint32_t timeout_ms, int stop_fd, short* revents) {
  pollfd fds[2] = {{fd, events, 0}, {stop_fd, POLLIN, 0}};
  const nfds_t n = stop_fd >= 0 ? 2 : 1;
  for (;;) {
    int rc = ::poll(fds, n, timeout_ms == kNoTimeout ? -1 : static_cast<int>(std::min<uint32_t>(timeout_ms, INT32_MAX)));
    if (rc < 0 && errno == EINTR) continue;  // restarts the full timeout: a bound, not a deadline
    if (rc < 0) return OutsideErrnoToStatus(errno, "poll");
    if (revents != nullptr) *revents = fds[0].revents;
    if (n == 2 && fds[1].revents != 0) return Ready::kStopped;
    return rc == 0 ? Ready::kTimeout : Ready::kReady;
  }
}

Status SendAll(int fd, std::string_view bytes, uint32_t timeout_ms) {
  while (!bytes.empty()) {
    VEXFS_ASSIGN_OR_RETURN(Ready ready, Wait(fd, POLLOUT, timeout_ms, -1));
    if (ready == Ready::kTimeout) {
      return Status::IOError("send: the peer took nothing for " + std::to_string(timeout_ms) + " ms");
    }
    ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) return OutsideErrnoToStatus(errno, "send");
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return Status::Ok();
}

Result<size_t> RecvSome(int fd, char* buf, size_t n, uint32_t timeout_ms, int stop_fd) {
  for (;;) {
    VEXFS_ASSIGN_OR_RETURN(Ready ready, Wait(fd, POLLIN, timeout_ms, stop_fd));
    if (ready == Ready::kStopped) return Status::IOError("stopped");
    if (ready == Ready::kTimeout) {
      return Status::IOError("receive: nothing arrived for " + std::to_string(timeout_ms) + " ms");
    }
    ssize_t got = ::recv(fd, buf, n, 0);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got < 0) return OutsideErrnoToStatus(errno, "receive");
    return static_cast<size_t>(got);
  }
}

Status RecvExactly(int fd, char* buf, size_t n, uint32_t timeout_ms, std::string_view what, int stop_fd) {
  for (size_t have = 0; have < n;) {
    VEXFS_ASSIGN_OR_RETURN(size_t got, RecvSome(fd, buf + have, n - have, timeout_ms, stop_fd));
    if (got == 0) {
      return Status::IOError("the connection closed inside " + std::string(what) + " (" +
                             std::to_string(have) + " of " + std::to_string(n) + " bytes)");
    }
    have += got;
  }
  return Status::Ok();
}

}  // namespace vexfs::kv::net
