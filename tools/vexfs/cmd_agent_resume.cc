// `vexfs agent resume`: continues a moved agent from the KV cache of its latest
// covered turn, in llama.cpp (in process) or in ONNX Runtime (through the
// vexfs-onnx adapter), and lists its pending actions: those that completed are
// never to be run again (docs/agent-bundle.md, "Resuming").
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>

#include "cli.h"
#include "kv_flags.h"
#include "vexfs/agent_resume.h"
#include "vexfs/kv/validate.h"

namespace vexfs::cli {
namespace agent_resume {
namespace {

using nlohmann::json;

struct ResumeArgs {
  std::string branch, at, cache, runtime = "llama", model, keyring, onnx_adapter;
  uint32_t generate = 32;
  bool verify = false;
  SettingsFlags flags;
};

json NodeBrief(const GraphNode& n) {
  return {{"id", n.id.ToHex()}, {"kind", n.kind}, {"key", n.key}, {"text", n.text},
          {"state", ActionStateName(n.action)}};
}

json PointJson(const agent::ResumePoint& p) {
  json uncovered = json::array(), done = json::array(), open = json::array();
  for (const GraphNode& n : p.uncovered_turns) uncovered.push_back(NodeBrief(n));
  for (const GraphNode& n : p.completed_actions) done.push_back(NodeBrief(n));
  for (const GraphNode& n : p.open_actions) open.push_back(NodeBrief(n));
  return {{"turn", p.turn.id.ToHex()}, {"cache", p.cache}, {"kv_path", p.kv_path},
          {"cache_tokens", p.turn.span->cache_tokens}, {"uncovered_turns", uncovered},
          {"completed_actions", done}, {"open_actions", open}};
}

void PrintPoint(const agent::ResumePoint& p) {
  std::cout << "resuming after turn " << p.turn.id.ToHex() << " from KV cache '" << p.cache << "' ("
            << p.turn.span->cache_tokens << " tokens)\n";
  if (!p.uncovered_turns.empty()) {
    std::cout << "  " << p.uncovered_turns.size() << " later turn(s) are not in the cache: read them again\n";
  }
  for (const GraphNode& n : p.completed_actions) {
    std::cout << "  completed, never to run again: " << n.key << " (" << ActionStateName(n.action) << ") " << n.text << "\n";
  }
  for (const GraphNode& n : p.open_actions) {
    std::cout << "  still open: " << n.key << " (" << ActionStateName(n.action) << ") " << n.text << "\n";
  }
}

// Runs `argv` and returns its exit status and standard output (its standard
// error passes through).
Result<std::pair<int, std::string>> RunCapturing(const std::vector<std::string>& argv) {
  std::vector<char*> args;  // built before the fork: the child only execs
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return Status::IOError("pipe: " + std::string(std::strerror(errno)));
  pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    return Status::IOError("fork: " + std::string(std::strerror(err)));
  }
  if (pid == 0) {
    ::dup2(pipe_fds[1], STDOUT_FILENO);  // dup2 clears close-on-exec on the copy
    ::execvp(args[0], args.data());
    _exit(127);
  }
  ::close(pipe_fds[1]);
  std::string out;
  char buf[65536];
  ssize_t n;
  while ((n = ::read(pipe_fds[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)) {
    if (n > 0) out.append(buf, n);
  }
  ::close(pipe_fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return std::make_pair(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), out);
}

std::string OnnxAdapter(const ResumeArgs& a) {
  if (!a.onnx_adapter.empty()) return a.onnx_adapter;
  const char* env = std::getenv("VEXFS_ONNX_ADAPTER");
  return env != nullptr ? env : "";
}

// The cache goes out in the Hugging Face layout; the adapter restores it into
// ONNX Runtime, continues, and judges the continuation (docs/kv.md).
Status ResumeOnnx(Context& ctx, const ResumeArgs& a, const agent::ResumePoint& point) {
  const std::string adapter = OnnxAdapter(a);
  if (adapter.empty()) {
    return Status::InvalidArgument("--runtime onnx needs --onnx-adapter PATH (or $VEXFS_ONNX_ADAPTER): "
                                   "adapters/onnx/bin/vexfs-onnx.mjs");
  }
  VEXFS_ASSIGN_OR_RETURN(auto keyring, LoadKeyring(a.keyring));
  VEXFS_ASSIGN_OR_RETURN(kv::StateBundle state, kv::ReadStateFile(point.kv_path, keyring.get()));
  const char* tmpdir = std::getenv("TMPDIR");
  std::string tmpl = std::string(tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp") + "/vexfs-resume-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) return Status::IOError("mkdtemp " + tmpl + ": " + std::strerror(errno));
  const std::string dir = tmpl;
  const char* node = std::getenv("VEXFS_NODE");
  auto written = WriteHfFolder(state, dir + "/cache");
  std::optional<Result<std::pair<int, std::string>>> ran;
  if (written.ok()) {
    ran = RunCapturing({node != nullptr && *node != '\0' ? node : "node", adapter, "verify", "--model", a.model,
                        "--cache", dir + "/cache", "--steps", std::to_string(a.generate), "--json"});
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  VEXFS_RETURN_IF_ERROR(written.status());
  VEXFS_RETURN_IF_ERROR(ran->status());
  const auto& [exit_code, out] = ran->value();
  json verdict = json::parse(out, nullptr, false);
  if (exit_code != 0 || verdict.is_discarded()) {
    ctx.Fail(kExitFailure, "agent resume: the ONNX Runtime adapter failed (exit " + std::to_string(exit_code) +
                               (exit_code == 127 ? ": node not found? set $VEXFS_NODE" : "") + ")");
    return Status::Ok();
  }
  if (ctx.global.json) {
    ctx.PrintJson({{"runtime", "onnx"}, {"point", PointJson(point)}, {"onnx", verdict}});
  } else {
    PrintPoint(point);
    std::cout << "ONNX Runtime: verdict " << verdict.value("verdict", std::string("?")) << "\n";
  }
  const std::string v = verdict.value("verdict", std::string());
  if (v != "exact" && v != "equivalent") ctx.Fail(kExitFailure, "agent resume: verdict " + v);
  return Status::Ok();
}

Status ResumeLlama(Context& ctx, const ResumeArgs& a, const agent::ResumePoint& point) {
  VEXFS_ASSIGN_OR_RETURN(kv::RuntimeSettings settings, ToSettings(a.flags));
  VEXFS_ASSIGN_OR_RETURN(auto keyring, LoadKeyring(a.keyring));
  VEXFS_ASSIGN_OR_RETURN(std::unique_ptr<kv::Model> model, kv::Model::Load(a.model));
  VEXFS_ASSIGN_OR_RETURN(agent::ResumeResult r, agent::Resume(point, *model, settings, a.generate, keyring.get()));
  const std::string text = model->Detokenize(r.continuation.tokens);
  json out = {{"runtime", "llama"}, {"point", PointJson(point)}, {"restored_tokens", r.restored_tokens},
              {"generated", r.continuation.tokens}, {"text", text}, {"compared_with_source", r.compared},
              {"matches_source", r.matches_source}, {"first_divergence", r.first_divergence},
              {"verify_seconds", r.timings.verify_seconds}, {"rebuild_seconds", r.timings.rebuild_seconds},
              {"load_seconds", r.timings.load_seconds}, {"generate_seconds", r.generate_seconds}};
  if (a.verify) {
    VEXFS_ASSIGN_OR_RETURN(kv::StateBundle state, kv::ReadStateFile(point.kv_path, keyring.get()));
    kv::ValidateOptions o;
    o.target = settings;
    o.horizon = a.generate;
    VEXFS_ASSIGN_OR_RETURN(kv::ValidationReport report, kv::Validate(*model, state, o));
    out["verdict"] = report.verdict;
  }
  if (ctx.global.json) {
    ctx.PrintJson(out);
  } else {
    PrintPoint(point);
    std::cout << text << "\n";
    if (r.compared > 0) {
      std::cout << "  continuation " << (r.matches_source ? "matches" : "differs from") << " the source's over "
                << r.compared << " tokens\n";
    }
    if (a.verify) std::cout << "  verdict: " << out["verdict"].get<std::string>() << "\n";
  }
  const std::string verdict = out.value("verdict", std::string("exact"));
  if (verdict != "exact" && verdict != "equivalent") ctx.Fail(kExitFailure, "agent resume: verdict " + verdict);
  return Status::Ok();
}

Status RunResume(Context& ctx, const ResumeArgs& a) {
  if (a.model.empty()) return Status::InvalidArgument("agent resume needs --model (a GGUF file, or for --runtime onnx a converted model folder)");
  auto db = ctx.OpenDb(/*read_only=*/true);
  if (!db) return Status::Ok();  // reported
  GraphReadOptions read;
  read.branch = a.branch;
  read.snapshot = a.at;
  VEXFS_ASSIGN_OR_RETURN(agent::ResumePoint point, agent::FindResumePoint(*db, read, a.cache));
  return a.runtime == "onnx" ? ResumeOnnx(ctx, a, point) : ResumeLlama(ctx, a, point);
}

}  // namespace
}  // namespace agent_resume

void AddAgentResume(CLI::App& agent_cmd, Context& ctx) {
  using namespace agent_resume;
  CLI::App* cmd = agent_cmd.add_subcommand(
      "resume", "Continue the agent from its latest turn's KV cache, without reading the prompt again");
  auto a = std::make_shared<ResumeArgs>();
  cmd->add_option("--branch", a->branch, "The working graph of this branch (default: the current one)");
  cmd->add_option("--at", a->at, "Or the graph of this snapshot");
  cmd->add_option("--cache", a->cache, "Resume from this KV cache instead of the latest turn's");
  cmd->add_option("--runtime", a->runtime, "llama (llama.cpp, in process) or onnx (ONNX Runtime, through the adapter)")
      ->check(CLI::IsMember({"llama", "onnx"}));
  cmd->add_option("--model", a->model, "GGUF model (llama) or converted model folder (onnx)");
  cmd->add_option("--generate", a->generate, "Tokens to generate")->check(CLI::Range(1, 65536));
  cmd->add_option("--keyring", a->keyring, "Trusted public keys for the KV state (default: $VEXFS_KEYRING)");
  cmd->add_flag("--verify", a->verify, "Also run kv verify's causal check (re-reads the prompt as its baseline)");
  cmd->add_option("--onnx-adapter", a->onnx_adapter, "vexfs-onnx.mjs (default: $VEXFS_ONNX_ADAPTER)");
  AddSettingsFlags(cmd, a->flags);
  cmd->callback([&ctx, a] {
    Status st = RunResume(ctx, *a);
    if (!st.ok()) ctx.Fail(st);
  });
}

}  // namespace vexfs::cli
