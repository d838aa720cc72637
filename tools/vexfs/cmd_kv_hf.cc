// `vexfs kv export|import --layout hf`: KV state in the layout Hugging Face
// runtimes keep (docs/kv.md, "Across runtimes"). Export writes a verified state's
// cache as float32 [kv heads][tokens][head dim] per layer, the carried next-token
// logits, and a manifest naming the model identity, shape, tokens and the source's
// recorded continuation; import turns such a folder, written by another runtime,
// into a signed, sealed state file that `kv verify` and `kv restore` take.
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <memory>

#include "cli.h"
#include "kv_flags.h"
#include "vexfs/kv/hf_layout.h"
#include "vexfs/kv/state_file.h"
#include "vexfs/local_files.h"

namespace vexfs::cli {
namespace {

using nlohmann::json;

constexpr const char* kFormat = "vexfs-kv-hf-v1";

std::string_view FloatBytes(const std::vector<float>& v) {
  return {reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float)};  // little-endian hosts
}

// The state's kv.reference record, in its own format.
json ReferenceJson(const std::optional<kv::Reference>& ref) {
  if (!ref) return nullptr;
  return json::parse(kv::EncodeReference(*ref));
}

json Manifest(const kv::StateBundle& b, const kv::HfCache& hf) {
  const usxf::KvCacheInfo& i = b.info;
  return {{"format", kFormat},
          {"layout", "hf"},
          {"dtype", "float32"},
          {"arch", i.arch},
          {"weights_fingerprint", usxf::HexOf(i.weights_fingerprint)},
          {"hparams_fingerprint", usxf::HexOf(i.hparams_fingerprint)},
          {"tokenizer_fingerprint", usxf::HexOf(i.tokenizer_fingerprint)},
          {"n_layers", hf.n_layers},
          {"n_heads", i.n_heads.empty() ? 0 : i.n_heads[0]},
          {"n_kv_heads", hf.n_kv_heads},
          {"head_dim", hf.head_dim},
          {"n_tokens", hf.n_tokens},
          {"rope", RopeName(i.rope)},
          {"rope_freq_base", i.rope_freq_base},
          {"k_after_rope", i.k_after_rope},
          {"source_cache_type", kv::CacheTypeName(b.kv.type)},
          {"runtime", i.runtime},
          {"tokens", i.token_ids},
          {"cache", "cache.f32"},
          {"next_logits", "next_logits.f32"},
          {"n_vocab", b.next_logits.size()},
          {"reference", ReferenceJson(b.reference)}};
}

Status MakeDir(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0755) == 0 || errno == EEXIST) return Status::Ok();
  return Status::IOError("cannot create '" + dir + "': " + std::strerror(errno));
}

}  // namespace

Result<kv::HfCache> WriteHfFolder(const kv::StateBundle& b, const std::string& out) {
  VEXFS_ASSIGN_OR_RETURN(kv::HfCache hf, kv::ToHfLayout(b.info, b.kv));
  VEXFS_RETURN_IF_ERROR(MakeDir(out));
  VEXFS_RETURN_IF_ERROR(WriteLocalFileAtomically(out + "/cache.f32", FloatBytes(hf.data)));
  VEXFS_RETURN_IF_ERROR(WriteLocalFileAtomically(out + "/next_logits.f32", FloatBytes(b.next_logits)));
  // Last: a folder with a manifest is complete.
  json m = Manifest(b, hf);
  VEXFS_RETURN_IF_ERROR(WriteLocalFileAtomically(out + "/manifest.json", m.dump() + "\n"));
  return hf;
}

namespace {

struct ExportArgs {
  std::string state, out, layout = "hf", keyring;
};

Status RunExport(Context& ctx, const ExportArgs& a) {
  VEXFS_ASSIGN_OR_RETURN(auto keyring, LoadKeyring(a.keyring));
  VEXFS_ASSIGN_OR_RETURN(kv::StateBundle b, kv::ReadStateFile(a.state, keyring.get()));
  VEXFS_ASSIGN_OR_RETURN(kv::HfCache hf, WriteHfFolder(b, a.out));
  if (ctx.global.json) {
    ctx.PrintJson({{"exported", a.out}, {"tokens", hf.n_tokens}, {"layers", hf.n_layers}});
  } else {
    std::cout << "exported " << hf.n_tokens << " tokens of " << hf.n_layers << " layers to " << a.out
              << " (float32, [kv heads][tokens][head dim])\n";
  }
  return Status::Ok();
}

struct ImportArgs {
  std::string in, output, layout = "hf", sign_key;
};

Status RunImport(Context& ctx, const ImportArgs& a) {
  std::unique_ptr<usxf::SigningKey> key;
  if (!a.sign_key.empty()) {
    VEXFS_ASSIGN_OR_RETURN(usxf::SigningKey loaded, usxf::SigningKey::Load(a.sign_key));
    key = std::make_unique<usxf::SigningKey>(std::move(loaded));
  }
  VEXFS_ASSIGN_OR_RETURN(kv::StateBundle b, kv::ReadHfExport(a.in));
  VEXFS_RETURN_IF_ERROR(kv::WriteStateFile(a.output, b, key.get()));
  if (ctx.global.json) {
    ctx.PrintJson({{"imported", a.in}, {"state", a.output}, {"tokens", b.info.n_tokens()}, {"signed", key != nullptr}});
  } else {
    std::cout << "imported " << b.info.n_tokens() << " tokens of " << b.info.n_layers << " layers into "
              << a.output << (key ? " (signed)" : "") << "\n";
  }
  return Status::Ok();
}

void AddImport(CLI::App& kv, Context& ctx) {
  CLI::App* cmd = kv.add_subcommand("import", "Make a state file from a KV cache another runtime wrote");
  auto a = std::make_shared<ImportArgs>();
  cmd->add_option("folder", a->in, "Folder with manifest.json and its float32 files")->required();
  cmd->add_option("-o,--output", a->output, "State file to write")->required();
  cmd->add_option("--layout", a->layout, "hf: Hugging Face runtimes (transformers.js over ONNX Runtime)")
      ->check(CLI::IsMember({"hf"}));
  cmd->add_option("--sign-key", a->sign_key, "Sign the state file with this Ed25519 key");
  cmd->callback([&ctx, a] {
    Status st = RunImport(ctx, *a);
    if (!st.ok()) ctx.Fail(st);
  });
}

}  // namespace

void AddKvHfCommands(CLI::App& kv, Context& ctx) {
  AddImport(kv, ctx);
  CLI::App* cmd = kv.add_subcommand("export", "Write a verified state's KV cache in another runtime's layout");
  auto a = std::make_shared<ExportArgs>();
  cmd->add_option("state", a->state, "State file (from kv capture)")->required();
  cmd->add_option("-o,--out", a->out, "Folder to write")->required();
  cmd->add_option("--layout", a->layout, "hf: Hugging Face runtimes (transformers.js over ONNX Runtime)")
      ->check(CLI::IsMember({"hf"}));
  cmd->add_option("--keyring", a->keyring, "Trusted public keys (*.pub); a valid trusted signature is then required");
  cmd->callback([&ctx, a] {
    Status st = RunExport(ctx, *a);
    if (!st.ok()) ctx.Fail(st);
  });
}

}  // namespace vexfs::cli
