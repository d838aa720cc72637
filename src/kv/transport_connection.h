// One connection on the receiver, from the sender's hello to the verdict.
#ifndef VEXFS_KV_TRANSPORT_SESSION_H_
#define VEXFS_KV_TRANSPORT_SESSION_H_

#include <string>

#include "kv/transport_socket.h"
#include "kv/transport_spool.h"
#include "vexfs/kv/transport.h"

namespace vexfs::kv {

// What the receiver shares with each connection; all outlive it.
struct ConnectionEnv {
  const ServeOptions* options = nullptr;
  const Spool* spool = nullptr;
  int stop_fd = -1;
};

enum class ConnectionOutcome {
  kVerified,  // verdict ok sent (or the sender vanished right after verification)
  kRefused,   // a refusal sent; nothing kept
  kDropped,   // no verdict: the sender vanished or went silent, or Stop; prefix kept
};

// Receives one stream on `socket` and answers it; never throws, never returns
// an error: every failure becomes a verdict or a log line. *refusal, when not
// null, gets what a kRefused verdict said.
ConnectionOutcome ServeConnection(const ConnectionEnv& env, net::Fd socket, const std::string& peer,
                               Status* refusal = nullptr);

}  // namespace vexfs::kv

#endif  // VEXFS_KV_TRANSPORT_SESSION_H_
