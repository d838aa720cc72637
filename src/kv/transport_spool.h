// The receiver's spool directory and the byte source its StreamReader reads.
//
//   <spool>/lock               held (flock) by the one receiver using the spool
//   <spool>/partial/<id>.part  the prefix of a stream received so far
//   <spool>/verified/<id>.usxf streams that verified, moved here atomically
//
// <id> is the transfer id in hex, never a name the sender chose, so no path
// from the network is ever used.
#ifndef VEXFS_KV_TRANSPORT_SPOOL_H_
#define VEXFS_KV_TRANSPORT_SPOOL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "kv/transport_socket.h"
#include "vexfs/kv/transport.h"
#include "vexfs/usxf.h"

namespace vexfs::kv {

class Spool {
 public:
  // Creates the directories (mode 0700) and takes the lock; kBusy when another
  // receiver holds it.
  static Result<Spool> Open(const std::string& dir);

  std::string PartialPath(const TransferId& id) const;
  std::string VerifiedPath(const TransferId& id) const;
  // True when verified/ already holds this stream, `total` bytes long.
  bool HasVerified(const TransferId& id, uint64_t total) const;
  // Opens the partial file, creating it; *held gets its length, where the sender
  // resumes. A partial file longer than `total` cannot be a prefix and is emptied.
  Result<net::Fd> OpenPartial(const TransferId& id, uint64_t total, uint64_t* held) const;
  // Makes the partial file durable and moves it to verified/.
  Result<std::string> Promote(int partial_fd, const TransferId& id) const;
  void DiscardPartial(const TransferId& id) const;

 private:
  std::string dir_;
  std::shared_ptr<net::Fd> lock_;  // shared: Spool is copied into Result
};

// One stream as the StreamReader sees it: first the prefix already in the
// partial file (so resumed bytes are verified again), then the socket, each
// piece appended to the partial file as it arrives. Read returns 0 at `total`:
// the hello fixed the stream's length, and bytes past it never are read.
class SpoolSource : public usxf::ByteSource {
 public:
  struct Params {
    int partial_fd = -1;
    uint64_t held = 0;  // bytes already in the partial file
    uint64_t total = 0;
    int socket_fd = -1;
    uint32_t idle_timeout_ms = 0;
    int stop_fd = -1;
    std::function<void(uint64_t held, uint64_t total)> progress;
  };
  explicit SpoolSource(Params params) : p_(std::move(params)) {}

  Result<size_t> Read(char* buf, size_t n) override;

  // Why the socket side ended early (sender gone or silent, Stop called); ok if
  // it did not. A stream that failed this way is kept for resuming.
  const Status& peer_failure() const { return peer_failure_; }
  uint64_t position() const { return position_; }

 private:
  Result<size_t> ReadPrefix(char* buf, size_t n);
  Result<size_t> ReadSocket(char* buf, size_t n);
  void StartWriteback(uint64_t end);

  Params p_;
  uint64_t position_ = 0;
  uint64_t writeback_from_ = 0;  // bytes before this have had their writeback started
  Status peer_failure_;
};

}  // namespace vexfs::kv

#endif  // VEXFS_KV_TRANSPORT_SPOOL_H_
