// vexfs.kv's calls over the KV library, in the order `vexfs kv` runs them.
#include "python/kv_calls.h"

#include <memory>

#include "vexfs/kv/restore.h"
#include "vexfs/kv/state_file.h"
#include "vexfs/usxf_keys.h"

namespace vexfs::python {
namespace {

Result<std::vector<int32_t>> PromptTokens(const kv::Model& model, const KvCaptureArgs& args) {
  if (args.prompt.has_value() == args.tokens.has_value()) {
    return Status::InvalidArgument("capture needs exactly one of prompt and tokens");
  }
  std::vector<int32_t> tokens;
  if (args.prompt) {
    VEXFS_ASSIGN_OR_RETURN(tokens, model.Tokenize(*args.prompt));
  } else {
    tokens = *args.tokens;
  }
  if (tokens.empty()) return Status::InvalidArgument("the prompt is empty");
  const auto vocab = static_cast<int64_t>(model.shape().n_vocab);
  for (int32_t t : tokens) {
    if (t < 0 || t >= vocab) {
      return Status::InvalidArgument("token " + std::to_string(t) + " is outside the model's " +
                                     std::to_string(vocab) + "-token vocabulary");
    }
  }
  return tokens;
}

Result<std::unique_ptr<usxf::Keyring>> LoadKeyring(const std::string& dir) {
  if (dir.empty()) return std::unique_ptr<usxf::Keyring>();
  VEXFS_ASSIGN_OR_RETURN(usxf::Keyring keyring, usxf::Keyring::Load(dir));
  return std::make_unique<usxf::Keyring>(std::move(keyring));
}

// The verified state, checked against `model`'s identity before anything else.
Result<kv::StateBundle> LoadState(const kv::Model& model, const std::string& state,
                                  const std::string& keyring_dir) {
  VEXFS_ASSIGN_OR_RETURN(auto keyring, LoadKeyring(keyring_dir));
  VEXFS_ASSIGN_OR_RETURN(kv::StateBundle bundle, kv::ReadStateFile(state, keyring.get()));
  VEXFS_RETURN_IF_ERROR(kv::CheckIdentity(bundle.info, model));
  return bundle;
}

}  // namespace

Result<kv::RuntimeSettings> SettingsOf(const KvContextArgs& args) {
  kv::RuntimeSettings s;
  VEXFS_ASSIGN_OR_RETURN(s.k_type, kv::ParseCacheType(args.k_type));
  VEXFS_ASSIGN_OR_RETURN(s.v_type, kv::ParseCacheType(args.v_type));
  s.flash_attn = args.flash_attn;
  s.threads = args.threads;
  VEXFS_RETURN_IF_ERROR(s.Check());
  return s;
}

Result<kv::CaptureReport> CaptureState(const kv::Model& model, const KvCaptureArgs& args) {
  kv::CaptureOptions o;
  VEXFS_ASSIGN_OR_RETURN(o.settings, SettingsOf(args.context));
  VEXFS_ASSIGN_OR_RETURN(o.tokens, PromptTokens(model, args));
  std::optional<usxf::SigningKey> key;
  if (!args.sign_key.empty()) {
    VEXFS_ASSIGN_OR_RETURN(key, usxf::SigningKey::Load(args.sign_key));
  }
  if (args.block_size == 0) return Status::InvalidArgument("block_size must be at least 1");
  o.reference_steps = args.reference_steps;
  o.block_size = args.block_size;
  o.output_path = args.output;
  o.signer = key ? &*key : nullptr;
  return kv::Capture(model, o);
}

Result<KvGeneration> RestoreState(const kv::Model& model, const std::string& state,
                                  uint32_t generate, const std::string& keyring,
                                  const KvContextArgs& context) {
  VEXFS_ASSIGN_OR_RETURN(kv::RuntimeSettings settings, SettingsOf(context));
  VEXFS_ASSIGN_OR_RETURN(kv::StateBundle bundle, LoadState(model, state, keyring));
  kv::RestoreTimings timings;
  VEXFS_ASSIGN_OR_RETURN(auto restored,
                         kv::RestoreBundle(model, bundle, settings, generate, &timings));
  VEXFS_ASSIGN_OR_RETURN(kv::Continuation continuation, restored->Greedy(generate));
  KvGeneration out;
  out.restored_tokens = static_cast<uint32_t>(bundle.info.n_tokens());
  out.text = model.Detokenize(continuation.tokens);
  out.tokens = std::move(continuation.tokens);
  out.rebuild_seconds = timings.rebuild_seconds;
  out.load_seconds = timings.load_seconds;
  return out;
}

Result<kv::ValidationReport> VerifyState(const kv::Model& model, const std::string& state,
                                         uint32_t horizon, uint32_t probes,
                                         const std::string& keyring,
                                         const KvContextArgs& context) {
  if (horizon == 0) return Status::InvalidArgument("horizon must be at least 1");
  kv::ValidateOptions o;
  VEXFS_ASSIGN_OR_RETURN(o.target, SettingsOf(context));
  VEXFS_ASSIGN_OR_RETURN(kv::StateBundle bundle, LoadState(model, state, keyring));
  o.horizon = horizon;
  o.probes = probes;
  return kv::Validate(model, bundle, o);
}

}  // namespace vexfs::python
