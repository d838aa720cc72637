// The KV commands' shared flags, prompt reading and keyring (see kv_flags.h).
#include "kv_flags.h"

#include "cli.h"
#include "vexfs/local_files.h"

namespace vexfs::cli {

void AddSettingsFlags(CLI::App* cmd, SettingsFlags& f) {
  cmd->add_option("--k-type", f.k_type, "K cache type: f32, f16, bf16, q8_0");
  cmd->add_option("--v-type", f.v_type, "V cache type: f32, f16, bf16, q8_0 (q8_0 needs flash attention)");
  cmd->add_option("--flash-attn", f.flash_attn, "on (V kept row-major) or off (V transposed)")
      ->check(CLI::IsMember({"on", "off"}));
  cmd->add_option("--seqs", f.seqs, "Sequences the context serves")->check(CLI::Range(1, 256));
  cmd->add_option("--seq", f.seq, "The sequence to capture from or restore into");
  cmd->add_flag("--unified", f.unified, "One KV stream shared by all sequences");
  cmd->add_option("--threads", f.threads, "CPU threads (default: all cores)")->check(CLI::Range(0, 512));
}

Result<kv::RuntimeSettings> ToSettings(const SettingsFlags& f) {
  kv::RuntimeSettings s;
  VEXFS_ASSIGN_OR_RETURN(s.k_type, kv::ParseCacheType(f.k_type));
  VEXFS_ASSIGN_OR_RETURN(s.v_type, kv::ParseCacheType(f.v_type));
  s.flash_attn = f.flash_attn == "on";
  s.n_seq_max = f.seqs;
  s.seq_id = f.seq;
  s.kv_unified = f.unified;
  s.threads = f.threads;
  VEXFS_RETURN_IF_ERROR(s.Check());
  return s;
}

Result<std::vector<int32_t>> PromptTokens(const kv::Model& model, const std::string& file,
                                          const std::string& text, uint32_t limit) {
  std::string prompt = text;
  if (!file.empty()) {
    VEXFS_ASSIGN_OR_RETURN(prompt, ReadLocalFile(file));
  }
  VEXFS_ASSIGN_OR_RETURN(std::vector<int32_t> tokens, model.Tokenize(prompt));
  if (limit > 0) {
    if (tokens.size() < limit) {
      return Status::InvalidArgument("the prompt has " + std::to_string(tokens.size()) +
                                     " tokens; --tokens asked for " + std::to_string(limit));
    }
    tokens.resize(limit);
  }
  if (tokens.empty()) return Status::InvalidArgument("the prompt is empty");
  return tokens;
}

// Loads --keyring (or $VEXFS_KEYRING) when one is named.
Result<std::unique_ptr<usxf::Keyring>> LoadKeyring(const std::string& flag) {
  const std::string dir = KeyringDir(flag);
  if (dir.empty()) return std::unique_ptr<usxf::Keyring>();
  VEXFS_ASSIGN_OR_RETURN(usxf::Keyring k, usxf::Keyring::Load(dir));
  return std::make_unique<usxf::Keyring>(std::move(k));
}

const char* RopeName(usxf::RopeType rope) {
  switch (rope) {
    case usxf::RopeType::kNeox:
      return "neox";
    case usxf::RopeType::kInterleaved:
      return "interleaved";
    case usxf::RopeType::kNone:
      break;
  }
  return "none";
}

}  // namespace vexfs::cli
