// KV commands that look at a model rather than move state: model-info (shape and
// identity fingerprints) and logits (what llama.cpp predicts after a prompt), the
// reference another runtime's copy of the model is checked against (docs/kv.md).
#include <algorithm>
#include <iostream>
#include <memory>
#include <numeric>

#include "cli.h"
#include "kv_flags.h"
#include "vexfs/local_files.h"

namespace vexfs::cli {
namespace {

using nlohmann::json;

json ModelJson(const kv::Model& model) {
  const kv::AttentionShape& s = model.shape();
  const kv::ModelFingerprints& f = model.fingerprints();
  return {{"model", model.path()},
          {"arch", f.arch},
          {"n_layers", s.n_layers},
          {"n_heads", s.n_heads},
          {"n_kv_heads", s.n_kv_heads},
          {"k_head_dim", s.k_head_dim},
          {"v_head_dim", s.v_head_dim},
          {"rope", RopeName(s.rope)},
          {"rope_freq_base", s.rope_freq_base},
          {"rope_freq_scale", s.rope_freq_scale},
          {"n_ctx_train", s.n_ctx_train},
          {"n_vocab", s.n_vocab},
          {"weights_fingerprint", usxf::HexOf(f.weights)},
          {"hparams_fingerprint", usxf::HexOf(f.hparams)},
          {"tokenizer_fingerprint", usxf::HexOf(f.tokenizer)}};
}

void AddModelInfo(CLI::App& kv, Context& ctx) {
  CLI::App* cmd = kv.add_subcommand("model-info", "Show a GGUF model's attention shape and identity fingerprints");
  auto path = std::make_shared<std::string>();
  cmd->add_option("--model", *path, "GGUF model")->required();
  cmd->callback([&ctx, path] {
    auto model = kv::Model::Load(*path);
    if (!model.ok()) return (void)ctx.Fail(model.status());
    json j = ModelJson(**model);
    if (ctx.global.json) return ctx.PrintJson(j);
    std::cout << j["arch"].get<std::string>() << ": " << j["n_layers"] << " layers, " << j["n_heads"]
              << " heads, " << j["n_kv_heads"] << " KV heads of " << j["k_head_dim"] << ", rope "
              << j["rope"].get<std::string>() << " (base " << j["rope_freq_base"] << "), vocabulary "
              << j["n_vocab"] << "\n"
              << "weights   " << j["weights_fingerprint"].get<std::string>() << "\n"
              << "hparams   " << j["hparams_fingerprint"].get<std::string>() << "\n"
              << "tokenizer " << j["tokenizer_fingerprint"].get<std::string>() << "\n";
  });
}

// The `count` largest logits, largest first (lower ids first on ties).
std::vector<int32_t> TopIds(const std::vector<float>& logits, size_t count) {
  std::vector<int32_t> ids(logits.size());
  std::iota(ids.begin(), ids.end(), 0);
  count = std::min(count, ids.size());
  std::partial_sort(ids.begin(), ids.begin() + static_cast<ptrdiff_t>(count), ids.end(),
                    [&](int32_t a, int32_t b) { return logits[a] > logits[b] || (logits[a] == logits[b] && a < b); });
  ids.resize(count);
  return ids;
}

struct LogitsArgs {
  std::string model, prompt_file, prompt, logits_out;
  std::vector<int32_t> token_ids;
  uint32_t top = 5;
  SettingsFlags flags;
};

Result<std::vector<int32_t>> LogitsTokens(const kv::Model& model, const LogitsArgs& a) {
  const int given = !a.prompt_file.empty() + !a.prompt.empty() + !a.token_ids.empty();
  if (given != 1) {
    return Status::InvalidArgument("logits: give exactly one of --prompt, --prompt-file and --token-ids");
  }
  if (a.token_ids.empty()) return PromptTokens(model, a.prompt_file, a.prompt, 0);
  for (int32_t id : a.token_ids) {
    if (id < 0 || static_cast<uint32_t>(id) >= model.shape().n_vocab) {
      return Status::InvalidArgument("token id " + std::to_string(id) + " is outside the vocabulary of " +
                                     std::to_string(model.shape().n_vocab));
    }
  }
  return a.token_ids;
}

// Prefills the tokens in a fresh context and reports the next token's logits.
Status RunLogits(Context& ctx, const LogitsArgs& a) {
  VEXFS_ASSIGN_OR_RETURN(kv::RuntimeSettings settings, ToSettings(a.flags));
  VEXFS_ASSIGN_OR_RETURN(std::unique_ptr<kv::Model> model, kv::Model::Load(a.model));
  VEXFS_ASSIGN_OR_RETURN(std::vector<int32_t> tokens, LogitsTokens(*model, a));
  const uint32_t n_ctx = static_cast<uint32_t>(tokens.size()) + 1;
  VEXFS_ASSIGN_OR_RETURN(auto context, kv::ModelContext::Create(*model, settings, n_ctx));
  VEXFS_RETURN_IF_ERROR(context->Prefill(tokens));
  const std::vector<float>& logits = context->pending_logits();
  if (!a.logits_out.empty()) {
    // Raw little-endian float32, one per vocabulary entry (x86-64 and ARM).
    VEXFS_RETURN_IF_ERROR(WriteLocalFileAtomically(
        a.logits_out, {reinterpret_cast<const char*>(logits.data()), logits.size() * sizeof(float)}));
  }
  json top = json::array();
  for (int32_t id : TopIds(logits, a.top)) {
    top.push_back({{"id", id}, {"logit", logits[id]}, {"text", model->Detokenize({id})}});
  }
  json j = {{"model", a.model},  {"settings", settings.Describe()}, {"tokens", tokens},
            {"n_vocab", logits.size()}, {"argmax", kv::Argmax(logits)}, {"top", top}};
  if (ctx.global.json) {
    ctx.PrintJson(j);
    return Status::Ok();
  }
  std::cout << tokens.size() << " tokens (" << settings.Describe() << "); next token logits, largest first:\n";
  for (const json& t : top) {
    std::cout << "  " << t["id"] << "  " << t["logit"] << "  " << t["text"].get<std::string>() << "\n";
  }
  return Status::Ok();
}

void AddLogits(CLI::App& kv, Context& ctx) {
  CLI::App* cmd = kv.add_subcommand("logits", "Prefill a prompt and show the next token's logits (a reference for other runtimes)");
  auto a = std::make_shared<LogitsArgs>();
  cmd->add_option("--model", a->model, "GGUF model")->required();
  cmd->add_option("--prompt", a->prompt, "Prompt text");
  cmd->add_option("--prompt-file", a->prompt_file, "Prompt text file");
  cmd->add_option("--token-ids", a->token_ids, "Token ids instead of a prompt (comma-separated)")->delimiter(',');
  cmd->add_option("--top", a->top, "How many of the largest logits to show")->check(CLI::Range(1, 1000));
  cmd->add_option("--logits-out", a->logits_out, "Write every logit here as raw little-endian float32");
  AddSettingsFlags(cmd, a->flags);
  cmd->callback([&ctx, a] {
    Status st = RunLogits(ctx, *a);
    if (!st.ok()) ctx.Fail(st);
  });
}

}  // namespace

void AddKvInspectCommands(CLI::App& kv, Context& ctx) {
  AddModelInfo(kv, ctx);
  AddLogits(kv, ctx);
}

}  // namespace vexfs::cli
