// Moving USXF streams between processes and hosts over TCP: `vexfs kv send`
// streams a file, `vexfs kv serve` receives it. The protocol, guarantees and
// limits are written down in docs/kv-transport.md; in short:
//
//  - The receiver checks a stream while it arrives, through usxf::StreamReader:
//    a bad preamble or header is refused before the body is sent, a damaged
//    section is named in the refusal. With a keyring it then requires a valid
//    signature by a trusted key (usxf::VerifyFile).
//  - Nothing reaches the receiver's on_verified hook, or its verified/
//    directory, unless the whole stream verified. A stream that fails is deleted.
//  - A dropped connection leaves the received prefix in the receiver's spool.
//    Sending the same file again (SendFile retries on its own) continues from
//    there; the receiver re-reads that prefix through a fresh StreamReader before
//    the new bytes, so what is verified is always the whole file from byte 0.
//  - Not done: encryption and peer authentication (no TLS). The signature over
//    the USXF root is the trust anchor; without a keyring anyone who can connect
//    can deliver an intact stream.
//
// Thread-safety: SendFile may run on any number of threads at once. A Receiver
// runs on one thread (Run); Stop may be called from any thread.
#ifndef VEXFS_KV_TRANSPORT_H_
#define VEXFS_KV_TRANSPORT_H_

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "vexfs/status.h"
#include "vexfs/usxf.h"
#include "vexfs/usxf_keys.h"

// The public API: exported from libvexfs.so, which is built with hidden visibility.
#pragma GCC visibility push(default)

namespace vexfs::kv {

// Names one file's transfer across reconnects: SHA-256 over the file's size, its
// 80-byte preamble and its last 64 KiB, which hold the footer (section
// checksums, Merkle root, signatures). Content-derived without reading the
// whole file; two files that collide only make each other's resume fail
// verification, never pass it.
using TransferId = std::array<uint8_t, 32>;
// kNotFound / kIOError from the file system; kInvalidArgument below 80 bytes.
Result<TransferId> TransferIdOf(const std::string& path);
std::string TransferIdHex(const TransferId& id);

// ---------------------------------------------------------------------------
// Sending.
struct SendOptions {
  uint32_t connect_timeout_ms = 10'000;
  uint32_t io_timeout_ms = 60'000;        // no progress for this long fails the attempt
  uint32_t verdict_timeout_ms = 600'000;  // after the last byte, for the receiver to verify
  int max_attempts = 5;                   // connections tried before giving up
  uint32_t retry_delay_ms = 250;          // before the 2nd attempt; doubles, at most 8 s
  // Called after every piece sent: bytes of the file the receiver holds or has
  // been sent, of total. May be empty.
  std::function<void(uint64_t sent, uint64_t total)> progress;
};

struct SendReport {
  std::string transfer_id;     // hex
  uint64_t total_bytes = 0;    // the file's size
  uint64_t bytes_sent = 0;     // data bytes written to sockets, over all attempts
  uint64_t resumed_from = 0;   // where the receiver asked the last attempt to start
  int attempts = 0;            // connections made or tried
  bool verdict_received = false;
  std::string verified_path;   // the receiver's copy, when it verified
  std::string receiver_message;  // the receiver's verdict text (path or what was wrong)
};

// Streams the file at `path` to the receiver at `host_port` ("host:port",
// "[v6]:port"). Returns ok only when the receiver verified the whole stream (and
// its hook accepted it). Otherwise: the receiver's refusal with the receiver's
// code (kCorruption naming the damaged part, kPermissionDenied for a missing or
// untrusted signature, kFileTooLarge, ...), or, when no verdict came after
// max_attempts connections, the last kIOError. Connection failures are retried;
// refusals are not (except one the receiver marks as its own copy's fault).
// `report`, when not null, is filled in either case.
Status SendFile(const std::string& path, const std::string& host_port, const SendOptions& options,
                SendReport* report = nullptr);

// ---------------------------------------------------------------------------
// Receiving.
struct VerifiedStream {
  std::string path;         // <spool>/verified/<transfer id>.usxf
  std::string name;         // the sender's file name: for display, never a path
  std::string transfer_id;  // hex
  std::string peer;         // "address:port" of the sender
  usxf::FileSummary summary;
};
// Sees each stream once it verified and is durable in verified/. An error is
// sent to the sender as the verdict and the file is removed from verified/, so
// sending it again delivers it again.
using OnVerified = std::function<Status(const VerifiedStream&)>;

struct ServeOptions {
  std::string listen = "127.0.0.1:0";  // host:port; port 0 picks a free one
  std::string spool;                   // required; partial/ and verified/ are made inside
  // When set, a stream must carry a valid signature by one of these keys
  // (kPermissionDenied otherwise). When not, any intact sealed stream passes.
  std::optional<usxf::Keyring> keyring;
  uint64_t max_stream_bytes = 64ull << 30;
  uint32_t idle_timeout_ms = 30'000;  // a sender silent this long is dropped (its prefix kept)
  int max_streams = 0;                // Run returns after this many verdicts; 0: until Stop
  OnVerified on_verified;             // may be empty: verified streams are only kept
  // One line per event (connection, verdict, drop), for the operator. May be empty.
  std::function<void(const std::string& line)> log;
  // Bytes of the current stream held (re-read prefix included), of total. May be empty.
  std::function<void(uint64_t held, uint64_t total)> progress;
};

struct ServeStats {
  int verified = 0;  // verdict ok (including streams verified before)
  int refused = 0;   // verdict not ok
  int dropped = 0;   // connections that ended without a verdict
  Status last_refusal;  // the latest refusal sent (ok if none)
  Status last_verdict;  // the latest verdict sent: ok when that stream verified
};

// Accepts connections one at a time and receives one stream from each.
class Receiver {
 public:
  // Creates the spool directories and listens. kInvalidArgument for a bad
  // address or missing spool; kBusy when another receiver uses the spool;
  // kIOError when the address cannot be bound.
  static Result<std::unique_ptr<Receiver>> Listen(ServeOptions options);
  ~Receiver();

  uint16_t port() const;
  // Serves until max_streams verdicts have been given or Stop is called; a
  // stream cut by Stop keeps its prefix for resuming, as after a crash. Errors
  // of single connections are logged, not returned; an error means the listening
  // socket itself failed.
  Status Run();
  // Thread-safe (and async-signal-safe): makes Run return soon.
  void Stop();
  ServeStats stats() const;

 private:
  struct State;
  explicit Receiver(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// Listen, report the port, Run. `on_listening` may be empty.
Status Serve(ServeOptions options, const std::function<void(uint16_t port)>& on_listening = {});

}  // namespace vexfs::kv

#pragma GCC visibility pop

#endif  // VEXFS_KV_TRANSPORT_H_
