// The receiver's side of one transfer: read and bound the hello, say where to
// resume, verify the stream as it arrives (prefix from the spool first), keep it
// only if it verified, call the hook, answer with the verdict.
#include "kv/transport_connection.h"

#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <exception>

#include "kv/transport_protocol.h"
#include "vexfs/usxf_keys.h"

namespace vexfs::kv {
namespace {

// Bounds how long a refused sender's bytes in flight are read and dropped.
constexpr uint32_t kDrainMs = 2000;
constexpr uint32_t kAnswerTimeoutMs = 10'000;

// Closing a socket with unread bytes resets the connection, and a reset can
// destroy the verdict before the sender reads it. So after answering we close
// our side for writing and swallow what the sender still had in flight, for a
// bounded time, until it sees the verdict and closes.
void Drain(int fd) {
  ::shutdown(fd, SHUT_WR);
  std::string sink(64 << 10, '\0');
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(kDrainMs);
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    if (left.count() <= 0) return;
    Result<size_t> got = net::RecvSome(fd, sink.data(), sink.size(), static_cast<uint32_t>(left.count()));
    if (!got.ok() || *got == 0) return;
  }
}

// The hook is the caller's code (a model restore, say): whatever it throws
// becomes a refusal here instead of ending the receiver.
Status CallHookCatching(const OnVerified& hook, const VerifiedStream& stream) {
  try {
    return hook(stream);
  } catch (const std::exception& e) {
    return Status::IOError(std::string("the hook threw: ") + e.what());
  } catch (...) {
    return Status::IOError("the hook threw");
  }
}

class Connection {
 public:
  Connection(const ConnectionEnv& env, net::Fd socket, std::string peer)
      : env_(env), opt_(*env.options), socket_(std::move(socket)), peer_(std::move(peer)) {}

  ConnectionOutcome Run();
  const Status& refusal() const { return refusal_; }

 private:
  Result<wire::Hello> ReadHello();
  ConnectionOutcome Receive();
  ConnectionOutcome StreamFailed(const Status& status, const SpoolSource& source, uint64_t held);
  ConnectionOutcome Keep(int partial_fd, const usxf::FileSummary& summary);
  ConnectionOutcome Refuse(const Status& status, bool retry = false);
  ConnectionOutcome Verified(const std::string& path, const std::string& how);
  Status CallHook(const VerifiedStream& stream) const { return CallHookCatching(opt_.on_verified, stream); }
  void Log(const std::string& line) const {
    if (opt_.log) opt_.log(line);
  }
  std::string Label() const { return "'" + hello_.name + "' (" + TransferIdHex(hello_.id).substr(0, 12) + ")"; }

  const ConnectionEnv& env_;
  const ServeOptions& opt_;
  net::Fd socket_;
  std::string peer_;
  wire::Hello hello_;
  Status refusal_;
};

ConnectionOutcome Connection::Run() {
  Result<wire::Hello> hello = ReadHello();
  if (!hello.ok()) {
    // The fixed hello's own bounds failed: refuse; the connection ended: drop.
    if (hello.status().code() == StatusCode::kIOError) {
      Log(peer_ + ": no hello: " + hello.status().message());
      return ConnectionOutcome::kDropped;
    }
    return Refuse(hello.status());
  }
  hello_ = std::move(hello).value();
  Log(peer_ + ": " + Label() + ", " + std::to_string(hello_.total_size) + " bytes");
  if (env_.spool->HasVerified(hello_.id, hello_.total_size)) {
    return Verified(env_.spool->VerifiedPath(hello_.id), "already verified");
  }
  return Receive();
}

Result<wire::Hello> Connection::ReadHello() {
  char fixed[wire::kHelloFixedSize];
  VEXFS_RETURN_IF_ERROR(net::RecvExactly(socket_.get(), fixed, sizeof(fixed), opt_.idle_timeout_ms, "the hello",
                                         env_.stop_fd));
  VEXFS_ASSIGN_OR_RETURN(wire::HelloFixed f,
                         wire::DecodeHelloFixed(std::string_view(fixed, sizeof(fixed)), opt_.max_stream_bytes));
  f.hello.name.resize(f.name_length);  // at most kMaxNameLength, checked above
  VEXFS_RETURN_IF_ERROR(net::RecvExactly(socket_.get(), f.hello.name.data(), f.name_length, opt_.idle_timeout_ms,
                                         "the hello's name", env_.stop_fd));
  VEXFS_RETURN_IF_ERROR(wire::CheckName(f.hello.name));
  return std::move(f.hello);
}

ConnectionOutcome Connection::Receive() {
  uint64_t held = 0;
  Result<net::Fd> partial = env_.spool->OpenPartial(hello_.id, hello_.total_size, &held);
  if (!partial.ok()) return Refuse(partial.status());
  const wire::Message resume{wire::MessageKind::kResume, StatusCode::kOk, held, ""};
  Status sent = net::SendAll(socket_.get(), wire::EncodeMessage(resume), kAnswerTimeoutMs);
  if (!sent.ok()) {
    Log(peer_ + ": dropped " + Label() + " before the data: " + sent.message());
    return ConnectionOutcome::kDropped;
  }
  if (held > 0) Log(peer_ + ": resuming " + Label() + " at byte " + std::to_string(held) + ", re-verifying from 0");
  SpoolSource source({partial->get(), held, hello_.total_size, socket_.get(), opt_.idle_timeout_ms, env_.stop_fd,
                      opt_.progress});
  auto reader = usxf::StreamReader::Open(&source, usxf::VerifyLevel::kFull, /*hash_threads=*/2);
  if (!reader.ok()) return StreamFailed(reader.status(), source, held);
  Status read = (*reader)->ReadAll([](size_t, std::string_view) { return Status::Ok(); });
  if (!read.ok()) return StreamFailed(read, source, held);
  return Keep(partial->get(), (*reader)->summary());
}

ConnectionOutcome Connection::StreamFailed(const Status& status, const SpoolSource& source, uint64_t held) {
  if (!source.peer_failure().ok()) {
    Log(peer_ + ": dropped " + Label() + " at byte " + std::to_string(source.position()) + " of " +
        std::to_string(hello_.total_size) + " (kept for resuming): " + source.peer_failure().message());
    return ConnectionOutcome::kDropped;
  }
  env_.spool->DiscardPartial(hello_.id);
  // A resumed stream may have failed in the prefix an earlier connection left;
  // the sender may try once more from byte 0.
  return Refuse(status, held > 0);
}

ConnectionOutcome Connection::Keep(int partial_fd, const usxf::FileSummary& summary) {
  if (opt_.keyring.has_value()) {
    // The StreamReader recomputed the root from the bytes as they arrived and
    // checked every section against it: the signatures are checked over that
    // root, not by hashing the spooled file again.
    std::vector<usxf::SignatureCheck> checks;
    Status trusted = usxf::CheckVerifiedSummary(summary, *opt_.keyring, &checks);
    if (!trusted.ok()) {
      env_.spool->DiscardPartial(hello_.id);
      return Refuse(trusted);
    }
  }
  Result<std::string> path = env_.spool->Promote(partial_fd, hello_.id);
  if (!path.ok()) {
    env_.spool->DiscardPartial(hello_.id);
    return Refuse(path.status());
  }
  if (opt_.on_verified) {
    Status hook = CallHook({*path, hello_.name, TransferIdHex(hello_.id), peer_, summary});
    if (!hook.ok()) {
      ::unlink(path->c_str());
      return Refuse(hook.WithContext("verified, but the receiver did not accept it"));
    }
  }
  return Verified(*path, "verified");
}

ConnectionOutcome Connection::Refuse(const Status& status, bool retry) {
  refusal_ = status;
  Log(peer_ + ": refused " + (hello_.name.empty() && hello_.total_size == 0 ? "a stream" : Label()) + ": " +
      status.ToString());
  const wire::Message verdict{wire::MessageKind::kVerdict, status.code(), retry ? wire::kVerdictRetry : 0,
                              status.message()};
  if (net::SendAll(socket_.get(), wire::EncodeMessage(verdict), kAnswerTimeoutMs).ok()) Drain(socket_.get());
  return ConnectionOutcome::kRefused;
}

ConnectionOutcome Connection::Verified(const std::string& path, const std::string& how) {
  Log(peer_ + ": " + how + " " + Label() + " -> " + path);
  const wire::Message verdict{wire::MessageKind::kVerdict, StatusCode::kOk, 0, path};
  if (net::SendAll(socket_.get(), wire::EncodeMessage(verdict), kAnswerTimeoutMs).ok()) Drain(socket_.get());
  return ConnectionOutcome::kVerified;
}

}  // namespace

ConnectionOutcome ServeConnection(const ConnectionEnv& env, net::Fd socket, const std::string& peer, Status* refusal) {
  Connection connection(env, std::move(socket), peer);
  const ConnectionOutcome outcome = connection.Run();
  if (refusal != nullptr && outcome == ConnectionOutcome::kRefused) *refusal = connection.refusal();
  return outcome;
}

}  // namespace vexfs::kv
