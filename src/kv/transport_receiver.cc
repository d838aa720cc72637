// The receiver's accept loop: one connection at a time, each handed to a
// session, until enough verdicts were given or Stop was called.
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <mutex>

#include "common/file_util.h"
#include "kv/transport_connection.h"
#include "kv/transport_socket.h"
#include "kv/transport_spool.h"
#include "vexfs/kv/transport.h"

namespace vexfs::kv {

struct Receiver::State {
  ServeOptions options;
  Spool spool;
  net::Fd listener;
  net::Fd stop;  // an eventfd: readable once Stop was called, and from then on
  uint16_t port = 0;
  std::atomic<int> verified{0}, refused{0}, dropped{0};
  mutable std::mutex mu;
  Status last_refusal;  // guarded by mu
  Status last_verdict;  // guarded by mu

  bool Done() const {
    const int verdicts = verified.load() + refused.load();
    return options.max_streams > 0 && verdicts >= options.max_streams;
  }
  void Count(ConnectionOutcome outcome) {
    switch (outcome) {
      case ConnectionOutcome::kVerified: ++verified; break;
      case ConnectionOutcome::kRefused: ++refused; break;
      case ConnectionOutcome::kDropped: ++dropped; break;
    }
  }
};

Receiver::Receiver(std::unique_ptr<State> state) : state_(std::move(state)) {}
Receiver::~Receiver() = default;

Result<std::unique_ptr<Receiver>> Receiver::Listen(ServeOptions options) {
  VEXFS_ASSIGN_OR_RETURN(Spool spool, Spool::Open(options.spool));
  auto st = std::make_unique<State>();
  st->options = std::move(options);
  st->spool = std::move(spool);
  VEXFS_ASSIGN_OR_RETURN(st->listener, net::Listen(st->options.listen, &st->port));
  st->stop = net::Fd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!st->stop.valid()) return ErrnoStatus("eventfd");
  return std::unique_ptr<Receiver>(new Receiver(std::move(st)));
}

uint16_t Receiver::port() const { return state_->port; }

Status Receiver::Run() {
  State& st = *state_;
  const ConnectionEnv env{&st.options, &st.spool, st.stop.get()};
  while (!st.Done()) {
    VEXFS_ASSIGN_OR_RETURN(net::Ready ready, net::Wait(st.listener.get(), POLLIN, net::kNoTimeout, st.stop.get()));
    if (ready == net::Ready::kStopped) break;
    std::string peer;
    Result<net::Fd> conn = net::Accept(st.listener.get(), &peer);
    if (!conn.ok()) {
      // The connection was gone before we took it, or we are out of descriptors
      // for a moment: neither ends the receiver.
      if (st.options.log) st.options.log(conn.status().message());
      ::usleep(50'000);  // out of descriptors stays so; do not spin on it
      continue;
    }
    Status refusal;
    const ConnectionOutcome outcome = ServeConnection(env, std::move(conn).value(), peer, &refusal);
    st.Count(outcome);
    std::lock_guard<std::mutex> lock(st.mu);
    if (!refusal.ok()) st.last_refusal = refusal;
    if (outcome != ConnectionOutcome::kDropped) st.last_verdict = refusal;
  }
  return Status::Ok();
}

void Receiver::Stop() {
  const uint64_t one = 1;
  // write(2) on an eventfd is async-signal-safe; a full counter is still readable.
  [[maybe_unused]] ssize_t n = ::write(state_->stop.get(), &one, sizeof(one));
}

ServeStats Receiver::stats() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return {state_->verified.load(), state_->refused.load(), state_->dropped.load(), state_->last_refusal,
          state_->last_verdict};
}

Status Serve(ServeOptions options, const std::function<void(uint16_t port)>& on_listening) {
  VEXFS_ASSIGN_OR_RETURN(std::unique_ptr<Receiver> receiver, Receiver::Listen(std::move(options)));
  if (on_listening) on_listening(receiver->port());
  return receiver->Run();
}

}  // namespace vexfs::kv
