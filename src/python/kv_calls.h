// The KV-cache calls of vexfs.kv (docs/kv.md) in plain C++: build a random-weight
// test model, capture a prompt's cache into a USXF state file, restore a state
// into a fresh llama.cpp context and continue, and the causal verification. The
// same steps as `vexfs kv model-init|capture|restore|verify`, with the same
// checks: a state is verified (digests, signature when a keyring is given,
// model identity) before anything of it reaches the runtime.
//
// Thread-safety: one call per Model at a time (llama.cpp contexts of one model
// are built one after the other).
#ifndef VEXFS_PYTHON_KV_CALLS_H_
#define VEXFS_PYTHON_KV_CALLS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vexfs/kv/capture.h"
#include "vexfs/kv/model.h"
#include "vexfs/kv/model_context.h"
#include "vexfs/kv/validate.h"
#include "vexfs/status.h"

namespace vexfs::python {

// How the context keeps its cache: the knobs of `vexfs kv` --k-type, --v-type,
// --flash-attn and --threads.
struct KvContextArgs {
  std::string k_type = "f16";
  std::string v_type = "f16";
  bool flash_attn = true;
  int threads = 0;
};
Result<kv::RuntimeSettings> SettingsOf(const KvContextArgs& args);

struct KvCaptureArgs {
  std::optional<std::string> prompt;           // text, tokenized by the model ...
  std::optional<std::vector<int32_t>> tokens;  // ... or token ids
  std::string output;
  uint32_t reference_steps = 64;
  uint32_t block_size = 16;
  std::string sign_key;  // Ed25519 private key file; "" = unsigned
  KvContextArgs context;
};
Result<kv::CaptureReport> CaptureState(const kv::Model& model, const KvCaptureArgs& args);

// What a restore generated.
struct KvGeneration {
  uint32_t restored_tokens = 0;
  std::vector<int32_t> tokens;
  std::string text;
  double rebuild_seconds = 0;
  double load_seconds = 0;
};
Result<KvGeneration> RestoreState(const kv::Model& model, const std::string& state,
                                  uint32_t generate, const std::string& keyring,
                                  const KvContextArgs& context);

Result<kv::ValidationReport> VerifyState(const kv::Model& model, const std::string& state,
                                         uint32_t horizon, uint32_t probes,
                                         const std::string& keyring,
                                         const KvContextArgs& context);

}  // namespace vexfs::python

#endif  // VEXFS_PYTHON_KV_CALLS_H_
