// KV-cache migration commands: model-init, capture, restore, verify (docs/kv.md).
// serve and send live in cmd_kv_net.cc, model-info and logits in
// cmd_kv_inspect.cc, export and import in cmd_kv_hf.cc.
#include <iostream>
#include <memory>

#include "cli.h"
#include "kv_flags.h"
#include "vexfs/agent_bundle.h"
#include "vexfs/kv/capture.h"
#include "vexfs/kv/model.h"
#include "vexfs/kv/model_init.h"
#include "vexfs/kv/restore.h"
#include "vexfs/kv/transport.h"
#include "vexfs/kv/validate.h"
#include "vexfs/local_files.h"
#include "vexfs/usxf_keys.h"

namespace vexfs::cli {
namespace {

using nlohmann::json;


void AddModelInit(CLI::App& kv, Context& ctx) {
  CLI::App* cmd = kv.add_subcommand("model-init", "Build a random-weight model with a real tokenizer (tests, demos)");
  auto o = std::make_shared<kv::ModelInitOptions>();
  auto shape = std::make_shared<std::string>("tiny");
  auto f32 = std::make_shared<bool>(false);
  cmd->add_option("--arch", o->arch, "Architecture (qwen2)");
  cmd->add_option("--shape", *shape, "tiny, qwen2.5-0.5b, or L,H,KV,D,FFN");
  cmd->add_option("--seed", o->seed, "Seed of the weights");
  cmd->add_option("--stdev", o->stdev, "Standard deviation of the weights (0.2 tiny, 0.05 for 0.5B: varied text)");
  cmd->add_flag("--f32-weights", *f32, "Matrices in f32 (default f16)");
  cmd->add_option("--vocab", o->vocab_path, "Tokenizer GGUF (default: llama.cpp's ggml-vocab-<arch>.gguf)");
  cmd->add_option("-o,--output", o->output_path, "Model file to write")->required();
  cmd->callback([&ctx, o, shape, f32] {
    auto parsed = kv::ParseModelShape(*shape);
    if (!parsed.ok()) return (void)ctx.Fail(parsed.status());
    o->shape = *parsed;
    o->f16_weights = !*f32;
    Status s = kv::InitRandomModel(*o);
    if (!s.ok()) return (void)ctx.Fail(s);
    if (ctx.global.json) return ctx.PrintJson({{"model", o->output_path}, {"seed", o->seed}});
    std::cout << "wrote " << o->output_path << "\n";
  });
}

void AddCapture(CLI::App& kv, Context& ctx) {
  CLI::App* cmd = kv.add_subcommand("capture", "Prefill a prompt and write its KV cache as a USXF state file");
  struct Args {
    std::string model, prompt_file, prompt, output, sign_key;
    uint32_t tokens = 0, reference = 64, block_size = 16;
    SettingsFlags flags;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("--model", a->model, "GGUF model")->required();
  cmd->add_option("--prompt-file", a->prompt_file, "Prompt text file");
  cmd->add_option("--prompt", a->prompt, "Prompt text");
  cmd->add_option("--tokens", a->tokens, "Keep the first N tokens of the prompt");
  cmd->add_option("--reference-steps", a->reference, "Greedy steps of the source recorded for kv verify (0: none)");
  cmd->add_option("--block-size", a->block_size, "Tokens per chained block hash")->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--sign-key", a->sign_key, "Sign the state file with this Ed25519 key");
  cmd->add_option("-o,--output", a->output, "State file to write")->required();
  AddSettingsFlags(cmd, a->flags);
  cmd->callback([&ctx, a] {
    if (a->prompt_file.empty() == a->prompt.empty()) {
      return (void)ctx.Fail(kExitUsage, "capture: give exactly one of --prompt-file and --prompt");
    }
    auto settings = ToSettings(a->flags);
    if (!settings.ok()) return (void)ctx.Fail(settings.status());
    std::unique_ptr<usxf::SigningKey> key;
    if (!a->sign_key.empty()) {
      auto loaded = usxf::SigningKey::Load(a->sign_key);
      if (!loaded.ok()) return (void)ctx.Fail(loaded.status());
      key = std::make_unique<usxf::SigningKey>(*loaded);
    }
    auto model = kv::Model::Load(a->model);
    if (!model.ok()) return (void)ctx.Fail(model.status());
    kv::CaptureOptions o;
    auto tokens = PromptTokens(**model, a->prompt_file, a->prompt, a->tokens);
    if (!tokens.ok()) return (void)ctx.Fail(tokens.status());
    o.tokens = *tokens;
    o.settings = *settings;
    o.reference_steps = a->reference;
    o.block_size = a->block_size;
    o.output_path = a->output;
    o.signer = key.get();
    Progress progress("prefill (tokens)");
    o.progress = [&progress](uint64_t done, uint64_t total) { progress.Update(done, total); };
    auto r = kv::Capture(**model, o);
    if (!r.ok()) return (void)ctx.Fail(r.status());
    if (ctx.global.json) {
      return ctx.PrintJson({{"output", a->output}, {"tokens", r->n_tokens}, {"cache_type", kv::CacheTypeName(r->type)},
                            {"kv_bytes", r->kv_bytes}, {"file_bytes", r->file_bytes},
                            {"prefill_seconds", r->prefill_seconds}, {"capture_seconds", r->capture_seconds},
                            {"write_seconds", r->write_seconds}, {"signed", key != nullptr},
                            {"reference_tokens", r->reference_tokens}});
    }
    std::cout << "captured " << r->n_tokens << " tokens (" << kv::CacheTypeName(r->type) << " cache, "
              << FormatBytes(r->kv_bytes) << ") into " << a->output << " (" << FormatBytes(r->file_bytes)
              << "); prefill " << r->prefill_seconds << " s, capture " << r->capture_seconds << " s\n";
  });
}

json ContinuationJson(const kv::ContinuationCheck& c) {
  return {{"available", c.available}, {"steps", c.steps}, {"tokens_equal", c.tokens_equal}, {"first_divergence", c.first_divergence},
          {"top1_agreement", c.top1_agreement}, {"logits_bit_exact_steps", c.logits_bit_exact},
          {"max_abs_logit_diff", c.max_abs_logit_diff}, {"max_abs_logit_diff_aligned", c.max_abs_logit_diff_aligned}};
}

json ReportJson(const kv::ValidationReport& r) {
  const kv::TensorCheck& t = r.tensors;
  return {{"verdict", r.verdict}, {"passed", r.passed()}, {"source_settings", r.source_settings},
          {"target_settings", r.target_settings}, {"tokens", r.n_tokens}, {"horizon", r.horizon},
          {"tensors", {{"readback_equals_loaded", t.readback_equals_loaded},
                       {"same_type_as_source", t.same_type_as_source},
                       {"bit_exact_vs_source", t.bit_exact_vs_source}, {"layers", t.layers},
                       {"layers_equal", t.layers_equal}, {"max_abs_diff_vs_source", t.max_abs_diff_vs_source}}},
          {"probes", {{"count", r.probes.count}, {"exact", r.probes.exact}, {"max_abs_diff", r.probes.max_abs_diff}}},
          {"next_logits_equal_reprefill", r.next_logits_equal_reprefill},
          {"vs_reprefill", ContinuationJson(r.vs_reprefill)}, {"vs_source", ContinuationJson(r.vs_source)},
          {"control", {{"changed", r.control.changed}, {"max_abs_logit_diff", r.control.max_abs_logit_diff},
                       {"first_divergence", r.control.first_divergence}}},
          {"restore_seconds", r.restore_seconds}, {"reprefill_seconds", r.reprefill_seconds},
          {"restored_tokens", r.restored_tokens}};
}

void PrintContinuation(const char* name, const kv::ContinuationCheck& c) {
  const uint32_t horizon = c.steps;
  if (!c.available) return (void)(std::cout << "  " << name << ": no record\n");
  std::cout << "  " << name << ": tokens " << (c.tokens_equal ? "equal" : "differ") << " (" << c.top1_agreement
            << "/" << horizon << " agree";
  if (c.first_divergence >= 0) std::cout << ", first difference at step " << c.first_divergence;
  std::cout << "), logits bit-exact in " << c.logits_bit_exact << "/" << horizon
            << " steps, max |dlogit| " << c.max_abs_logit_diff << " (" << c.max_abs_logit_diff_aligned
            << " while the inputs agree)\n";
}

void PrintReport(const kv::ValidationReport& r) {
  const kv::TensorCheck& t = r.tensors;
  std::cout << "verdict: " << r.verdict << " (" << r.n_tokens << " tokens, horizon " << r.horizon << ")\n"
            << "  source: " << r.source_settings << "\n  target: " << r.target_settings << "\n"
            << "  tensors: read-back " << (t.readback_equals_loaded ? "equals" : "DIFFERS FROM") << " what was loaded; "
            << t.layers_equal << "/" << t.layers << " layers bit-exact vs source, max |d| "
            << t.max_abs_diff_vs_source << "\n"
            << "  probes: " << r.probes.exact << "/" << r.probes.count << " exact, max |d| " << r.probes.max_abs_diff << "\n"
            << "  carried next-token logits " << (r.next_logits_equal_reprefill ? "equal" : "differ from")
            << " the target's re-prefill\n";
  PrintContinuation("vs re-prefill", r.vs_reprefill);
  PrintContinuation("vs source", r.vs_source);
  std::cout << "  control (corrupted KV): logits " << (r.control.changed ? "changed" : "DID NOT change")
            << ", max |dlogit| " << r.control.max_abs_logit_diff << "\n"
            << "  restore " << r.restore_seconds << " s vs re-prefill " << r.reprefill_seconds << " s\n";
}

struct StateArgs {
  std::string model, state, keyring;
  SettingsFlags flags;
};

void AddStateArgs(CLI::App* cmd, StateArgs& a) {
  cmd->add_option("--model", a.model, "GGUF model the state must belong to")->required();
  cmd->add_option("state", a.state, "USXF state file")->required();
  cmd->add_option("--keyring", a.keyring, "Trusted public keys (*.pub); a valid trusted signature is then "
                                          "required (default: $VEXFS_KEYRING)");
  AddSettingsFlags(cmd, a.flags);
}

// Model, settings, keyring and the verified state, or a failure already reported.
struct Loaded {
  std::unique_ptr<kv::Model> model;
  kv::RuntimeSettings settings;
  kv::StateBundle bundle;
};
std::optional<Loaded> LoadState(Context& ctx, const StateArgs& a) {
  auto settings = ToSettings(a.flags);
  if (!settings.ok()) return ctx.Fail(settings.status()), std::nullopt;
  auto keyring = LoadKeyring(a.keyring);
  if (!keyring.ok()) return ctx.Fail(keyring.status()), std::nullopt;
  // The file is verified before the model is even loaded: a bad file costs nothing.
  auto bundle = kv::ReadStateFile(a.state, keyring->get());
  if (!bundle.ok()) return ctx.Fail(bundle.status()), std::nullopt;
  auto model = kv::Model::Load(a.model);
  if (!model.ok()) return ctx.Fail(model.status()), std::nullopt;
  Status identity = kv::CheckIdentity(bundle->info, **model);
  if (!identity.ok()) return ctx.Fail(identity), std::nullopt;
  return Loaded{std::move(*model), *settings, std::move(*bundle)};
}

void AddRestore(CLI::App& kv, Context& ctx) {
  CLI::App* cmd = kv.add_subcommand("restore", "Verify a state file, load it into a fresh context and generate");
  auto a = std::make_shared<StateArgs>();
  auto generate = std::make_shared<uint32_t>(32);
  AddStateArgs(cmd, *a);
  cmd->add_option("--generate", *generate, "Tokens to generate after the restore (greedy)");
  cmd->callback([&ctx, a, generate] {
    auto loaded = LoadState(ctx, *a);
    if (!loaded) return;
    kv::RestoreTimings timings;
    auto context = kv::RestoreBundle(*loaded->model, loaded->bundle, loaded->settings, *generate, &timings);
    if (!context.ok()) return (void)ctx.Fail(context.status());
    auto c = (*context)->Greedy(*generate);
    if (!c.ok()) return (void)ctx.Fail(c.status());
    const std::string text = loaded->model->Detokenize(c->tokens);
    if (ctx.global.json) {
      return ctx.PrintJson({{"restored_tokens", loaded->bundle.kv.n_tokens}, {"generated", c->tokens},
                            {"text", text}, {"rebuild_seconds", timings.rebuild_seconds},
                            {"load_seconds", timings.load_seconds}});
    }
    std::cout << text << "\n";
  });
}

void AddVerifyCmd(CLI::App& kv, Context& ctx) {
  CLI::App* cmd = kv.add_subcommand("verify", "Causal check of a state file: restore, read back, probe, "
                                              "continue vs re-prefill and source, corrupted control");
  auto a = std::make_shared<StateArgs>();
  auto o = std::make_shared<kv::ValidateOptions>();
  AddStateArgs(cmd, *a);
  cmd->add_option("--horizon", o->horizon, "Greedy steps compared")->check(CLI::Range(1, 4096));
  cmd->add_option("--probes", o->probes, "Slots probed")->check(CLI::Range(0, 1 << 20));
  cmd->callback([&ctx, a, o] {
    auto loaded = LoadState(ctx, *a);
    if (!loaded) return;
    o->target = loaded->settings;
    Progress progress("re-prefill baseline (tokens)");
    o->progress = [&progress](uint64_t done, uint64_t total) { progress.Update(done, total); };
    auto r = kv::Validate(*loaded->model, loaded->bundle, *o);
    o->progress = nullptr;
    if (!r.ok()) return (void)ctx.Fail(r.status());
    if (ctx.global.json) {
      ctx.PrintJson(ReportJson(*r));
    } else {
      PrintReport(*r);
    }
    if (!r->passed()) ctx.Fail(kExitFailure, "kv verify: verdict " + r->verdict);
  });
}

// `kv serve --model M`: every stream that verified is restored into a fresh
// context of M (identity checked first) and continued for --generate tokens; a
// state that does not belong to M is refused back to its sender.
KvServeHook RestoreOnArrival(Context& ctx) {
  struct Args {
    std::string model;
    uint32_t generate = 16;
    SettingsFlags flags;
  };
  auto a = std::make_shared<Args>();
  KvServeHook hook;
  hook.add_options = [a](CLI::App& serve) {
    serve.add_option("--model", a->model, "Restore each verified state into this GGUF model and generate");
    serve.add_option("--generate", a->generate, "Tokens generated after each restore");
    AddSettingsFlags(&serve, a->flags);
  };
  hook.start = [&ctx, a](std::shared_ptr<const usxf::Keyring> keyring)
      -> Result<std::function<Status(const kv::VerifiedStream&)>> {
    if (a->model.empty()) return std::function<Status(const kv::VerifiedStream&)>();
    VEXFS_ASSIGN_OR_RETURN(kv::RuntimeSettings settings, ToSettings(a->flags));
    VEXFS_ASSIGN_OR_RETURN(std::unique_ptr<kv::Model> loaded, kv::Model::Load(a->model));
    std::shared_ptr<kv::Model> model = std::move(loaded);
    return std::function<Status(const kv::VerifiedStream&)>(
        [&ctx, a, keyring, model, settings](const kv::VerifiedStream& stream) -> Status {
          if (agent::IsBundle(stream.summary)) return Status::Ok();  // --import's
          VEXFS_ASSIGN_OR_RETURN(kv::StateBundle b, kv::ReadStateFile(stream.path, keyring.get()));
          VEXFS_ASSIGN_OR_RETURN(auto context, kv::RestoreBundle(*model, b, settings, a->generate, nullptr));
          VEXFS_ASSIGN_OR_RETURN(kv::Continuation c, context->Greedy(a->generate));
          const std::string text = model->Detokenize(c.tokens);
          if (ctx.global.json) {
            ctx.PrintJson({{"restored", stream.name}, {"path", stream.path}, {"tokens", b.kv.n_tokens},
                           {"generated", c.tokens}, {"text", text}});
          } else {
            std::cout << "restored " << stream.name << " (" << b.kv.n_tokens << " tokens): " << text << std::endl;
          }
          return Status::Ok();
        });
  };
  return hook;
}

}  // namespace

void AddKvCommands(CLI::App& app, Context& ctx) {
  CLI::App* kv = app.add_subcommand("kv", "Move a model's KV cache between processes and hosts (docs/kv.md)");
  kv->require_subcommand(1);
  AddModelInit(*kv, ctx);
  AddCapture(*kv, ctx);
  AddRestore(*kv, ctx);
  AddVerifyCmd(*kv, ctx);
  AddKvInspectCommands(*kv, ctx);
  AddKvHfCommands(*kv, ctx);
  AddKvNetCommands(*kv, ctx, {RestoreOnArrival(ctx), ImportBundlesOnArrival(ctx)});
}

}  // namespace vexfs::cli
