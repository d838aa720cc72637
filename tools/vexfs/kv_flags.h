// What the KV commands share: the flags that decide how a llama.cpp context keeps
// its cache, reading a prompt into token ids, the keyring a state is checked
// against, and the names of RoPE types.
#ifndef VEXFS_TOOLS_KV_FLAGS_H_
#define VEXFS_TOOLS_KV_FLAGS_H_

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vexfs/kv/hf_layout.h"
#include "vexfs/kv/model.h"
#include "vexfs/kv/model_context.h"
#include "vexfs/kv/state_file.h"
#include "vexfs/status.h"
#include "vexfs/usxf_keys.h"
#include "vexfs/usxf_kv.h"

namespace vexfs::cli {

// The flags that decide how a context keeps its cache, shared by every command
// that makes one.
struct SettingsFlags {
  std::string k_type = "f16", v_type = "f16", flash_attn = "on";
  uint32_t seqs = 1;
  int32_t seq = 0;
  bool unified = false;
  int threads = 0;
};

void AddSettingsFlags(CLI::App* cmd, SettingsFlags& f);
Result<kv::RuntimeSettings> ToSettings(const SettingsFlags& f);

// The tokens of the prompt in `file` or `text` (exactly one is non-empty), cut to
// the first `limit` when it is not 0. kInvalidArgument for an empty prompt or one
// shorter than `limit`.
Result<std::vector<int32_t>> PromptTokens(const kv::Model& model, const std::string& file,
                                          const std::string& text, uint32_t limit);

// Loads the keyring in `flag`'s directory, else $VEXFS_KEYRING's; null if neither
// names one.
Result<std::unique_ptr<usxf::Keyring>> LoadKeyring(const std::string& flag);

// Writes `b`'s cache in the Hugging Face layout into folder `out` (created if
// missing): cache.f32, next_logits.f32, then manifest.json (cmd_kv_hf.cc).
Result<kv::HfCache> WriteHfFolder(const kv::StateBundle& b, const std::string& out);

// "neox", "interleaved" or "none", as the JSON outputs name a RoPE type.
const char* RopeName(usxf::RopeType rope);

}  // namespace vexfs::cli

#endif  // VEXFS_TOOLS_KV_FLAGS_H_
