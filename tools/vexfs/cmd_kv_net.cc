// `vexfs kv serve` and `vexfs kv send`: USXF streams over TCP, verified while
// they arrive (docs/kv-transport.md). The KV runtime plugs into serve through
// KvServeHook (cli.h) to restore each verified stream; this file knows nothing
// of models.
#include <csignal>
#include <cstdlib>
#include <iostream>

#include "cli.h"
#include "vexfs/kv/transport.h"
#include "vexfs/local_files.h"
#include "vexfs/usxf_keys.h"

namespace vexfs::cli {
namespace {

using nlohmann::json;

// The receiver SIGINT and SIGTERM stop; Receiver::Stop is async-signal-safe.
kv::Receiver* g_serving = nullptr;

void StopServing(int) {
  if (g_serving != nullptr) g_serving->Stop();
}

struct ServeArgs {
  std::string listen, spool = "kv-spool", keyring_dir, port_file;
  bool allow_unsigned = false;
  int max_streams = 0;
  uint64_t max_bytes = 64ull << 30;
  uint32_t idle_timeout_s = 30;
};

// A network listener that restores state into a model must not take it from
// whoever connects: a keyring is required unless the operator says otherwise.
Result<std::optional<usxf::Keyring>> ServeKeyring(const ServeArgs& a) {
  std::string dir = a.keyring_dir;
  const char* env = std::getenv("VEXFS_KEYRING");
  if (dir.empty() && env != nullptr) dir = env;
  if (dir.empty() && !a.allow_unsigned) {
    return Status::InvalidArgument("serve needs --keyring DIR (or $VEXFS_KEYRING); --allow-unsigned accepts "
                                   "any intact sealed stream from anyone who can connect");
  }
  if (dir.empty()) return std::optional<usxf::Keyring>();
  VEXFS_ASSIGN_OR_RETURN(usxf::Keyring keyring, usxf::Keyring::Load(dir));
  if (keyring.keys().empty()) return Status::InvalidArgument("keyring " + dir + " holds no *.pub key");
  return std::optional<usxf::Keyring>(std::move(keyring));
}

Result<kv::ServeOptions> ServeOptionsFrom(const ServeArgs& a, const std::vector<KvServeHook>& hooks) {
  kv::ServeOptions o;
  o.listen = a.listen;
  o.spool = a.spool;
  VEXFS_ASSIGN_OR_RETURN(o.keyring, ServeKeyring(a));
  o.max_stream_bytes = a.max_bytes;
  o.idle_timeout_ms = a.idle_timeout_s * 1000;
  o.max_streams = a.max_streams;
  o.log = [](const std::string& line) { std::cerr << "vexfs kv serve: " << line << std::endl; };
  std::shared_ptr<const usxf::Keyring> keyring;
  if (o.keyring) keyring = std::make_shared<const usxf::Keyring>(*o.keyring);
  std::vector<kv::OnVerified> callbacks;
  for (const KvServeHook& hook : hooks) {
    if (!hook.start) continue;
    VEXFS_ASSIGN_OR_RETURN(kv::OnVerified callback, hook.start(keyring));
    if (callback) callbacks.push_back(std::move(callback));
  }
  if (!callbacks.empty()) {
    o.on_verified = [callbacks](const kv::VerifiedStream& stream) {
      for (const kv::OnVerified& callback : callbacks) VEXFS_RETURN_IF_ERROR(callback(stream));
      return Status::Ok();
    };
  }
  return o;
}

json StatsJson(const kv::ServeStats& s) {
  json j = {{"verified", s.verified}, {"refused", s.refused}, {"dropped", s.dropped}};
  if (!s.last_refusal.ok()) j["last_refusal"] = s.last_refusal.ToString();
  return j;
}

void RunServe(Context& ctx, const ServeArgs& a, const std::vector<KvServeHook>& hooks) {
  auto options = ServeOptionsFrom(a, hooks);
  if (!options.ok()) return (void)ctx.Fail(options.status());
  auto receiver = kv::Receiver::Listen(std::move(options).value());
  if (!receiver.ok()) return (void)ctx.Fail(receiver.status());
  std::cerr << "vexfs kv serve: listening on port " << (*receiver)->port() << ", spool " << a.spool << std::endl;
  if (!a.port_file.empty()) {
    Status written = WriteLocalFileAtomically(a.port_file, std::to_string((*receiver)->port()) + "\n");
    if (!written.ok()) return (void)ctx.Fail(written);
  }
  g_serving = receiver->get();
  std::signal(SIGINT, StopServing);
  std::signal(SIGTERM, StopServing);
  Status run = (*receiver)->Run();
  g_serving = nullptr;
  const kv::ServeStats stats = (*receiver)->stats();
  if (ctx.global.json) ctx.PrintJson(StatsJson(stats));
  if (!run.ok()) return (void)ctx.Fail(run);
  // One-shot use (--max-streams) reports the last stream's fate in the exit code.
  if (a.max_streams > 0 && !stats.last_verdict.ok()) (void)ctx.Fail(stats.last_verdict);
}

void AddServe(CLI::App& kv, Context& ctx, std::vector<KvServeHook> hooks) {
  CLI::App* cmd = kv.add_subcommand(
      "serve", "Receive USXF streams over TCP, verify them as they arrive, keep (and restore) the verified ones");
  auto a = std::make_shared<ServeArgs>();
  cmd->add_option("--listen", a->listen, "Address to listen on, HOST:PORT (port 0: any free port)")->required();
  cmd->add_option("--spool", a->spool, "Directory for partial and verified streams")->capture_default_str();
  cmd->add_option("--keyring", a->keyring_dir,
                  "Directory of trusted public keys (*.pub); a stream needs a valid signature by one "
                  "(default: $VEXFS_KEYRING)");
  cmd->add_flag("--allow-unsigned", a->allow_unsigned,
                "Without a keyring, accept any intact sealed stream (anyone who can connect can deliver)");
  cmd->add_option("--max-streams", a->max_streams, "Exit after this many streams were answered (0: never)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--max-bytes", a->max_bytes, "Refuse streams larger than this")->capture_default_str();
  cmd->add_option("--idle-timeout", a->idle_timeout_s, "Drop a sender silent this many seconds (its bytes are kept)")
      ->check(CLI::Range(1, 86400))
      ->capture_default_str();
  cmd->add_option("--port-file", a->port_file, "Write the port listened on to this file once listening");
  for (const KvServeHook& hook : hooks) {
    if (hook.add_options) hook.add_options(*cmd);
  }
  cmd->callback([&ctx, a, hooks] { RunServe(ctx, *a, hooks); });
}

json ReportJson(const std::string& file, const std::string& to, const kv::SendReport& r, const Status& st) {
  json j = {{"ok", st.ok()},           {"file", file},
            {"to", to},                {"transfer_id", r.transfer_id},
            {"bytes", r.total_bytes},  {"bytes_sent", r.bytes_sent},
            {"resumed_from", r.resumed_from}, {"attempts", r.attempts}};
  if (st.ok()) j["verified_path"] = r.verified_path;
  if (!st.ok()) j["error"] = st.message();
  return j;
}

void AddSend(CLI::App& kv, Context& ctx) {
  CLI::App* cmd = kv.add_subcommand(
      "send", "Stream a USXF file to a `vexfs kv serve`; resumes after a dropped connection");
  struct Args {
    std::string file, to;
    int attempts = 5;
    uint32_t io_timeout_s = 60;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("file", a->file, "USXF file")->required();
  cmd->add_option("address", a->to, "Receiver, HOST:PORT")->required();
  cmd->add_option("--attempts", a->attempts, "Connections to try before giving up")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--io-timeout", a->io_timeout_s, "Give up on a connection silent this many seconds")
      ->check(CLI::Range(1, 86400))
      ->capture_default_str();
  cmd->callback([&ctx, a] {
    kv::SendOptions options;
    options.max_attempts = a->attempts;
    options.io_timeout_ms = a->io_timeout_s * 1000;
    Progress progress("sending: bytes");
    options.progress = [&progress](uint64_t sent, uint64_t total) { progress.Update(sent, total); };
    kv::SendReport report;
    Status st = kv::SendFile(a->file, a->to, options, &report);
    if (ctx.global.json) ctx.PrintJson(ReportJson(a->file, a->to, report, st));
    if (!st.ok()) return (void)ctx.Fail(st);
    if (ctx.global.json) return;
    std::cout << a->file << ": verified by " << a->to << " as " << report.verified_path << " ("
              << FormatBytes(report.bytes_sent) << " sent"
              << (report.resumed_from > 0 ? ", resumed at byte " + std::to_string(report.resumed_from) : "")
              << ", " << report.attempts << " attempt(s))\n";
  });
}

}  // namespace

void AddKvNetCommands(CLI::App& kv, Context& ctx, std::vector<KvServeHook> hooks) {
  AddServe(kv, ctx, std::move(hooks));
  AddSend(kv, ctx);
}

}  // namespace vexfs::cli
