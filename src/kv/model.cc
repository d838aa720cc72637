// Loading a GGUF model for KV-cache work (see model.h): models whose state is not
// a plain KV cache are refused, and the rest describe their attention and identity.
#include "vexfs/kv/model.h"

#include <cstdlib>
#include <optional>
#include <string>

#include "kv/llama_runtime.h"
#include "llama.h"

namespace vexfs::kv {
namespace {

// A numeric GGUF key as text through the public metadata API; nullopt if absent.
std::optional<double> MetaNumber(const llama_model* m, const std::string& key) {
  char buf[128];
  if (llama_model_meta_val_str(m, key.c_str(), buf, sizeof(buf)) < 0) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(buf, &end);
  if (end == buf) return std::nullopt;
  return v;
}

Status CheckSupported(const llama_model* m, const std::string& path) {
  if (llama_model_is_recurrent(m) || llama_model_is_hybrid(m) || llama_model_is_diffusion(m)) {
    return Status::NotSupported(path + ": recurrent, hybrid and diffusion models keep " +
                                "state other than a KV cache; not supported");
  }
  if (llama_model_n_swa(m) > 0) {
    return Status::NotSupported(path + ": sliding-window attention caches are not supported");
  }
  const llama_rope_type rope = llama_model_rope_type(m);
  if (rope != LLAMA_ROPE_TYPE_NONE && rope != LLAMA_ROPE_TYPE_NORM &&
      rope != LLAMA_ROPE_TYPE_NEOX) {
    return Status::NotSupported(path + ": multi-dimensional RoPE caches are not supported");
  }
  return Status::Ok();
}

AttentionShape ReadShape(const llama_model* m, const std::string& arch) {
  AttentionShape s;
  s.n_layers = static_cast<uint32_t>(llama_model_n_layer(m));
  s.n_heads = static_cast<uint32_t>(llama_model_n_head(m));
  s.n_kv_heads = static_cast<uint32_t>(llama_model_n_head_kv(m));
  const uint32_t embd_head = static_cast<uint32_t>(llama_model_n_embd(m)) / s.n_heads;
  s.k_head_dim = static_cast<uint32_t>(
      MetaNumber(m, arch + ".attention.key_length").value_or(embd_head));
  s.v_head_dim = static_cast<uint32_t>(
      MetaNumber(m, arch + ".attention.value_length").value_or(embd_head));
  switch (llama_model_rope_type(m)) {
    case LLAMA_ROPE_TYPE_NEOX: s.rope = usxf::RopeType::kNeox; break;
    case LLAMA_ROPE_TYPE_NORM: s.rope = usxf::RopeType::kInterleaved; break;
    default: s.rope = usxf::RopeType::kNone; break;
  }
  s.rope_freq_base = MetaNumber(m, arch + ".rope.freq_base").value_or(10000.0);
  s.rope_freq_scale = llama_model_rope_freq_scale_train(m);
  s.n_ctx_train = static_cast<uint32_t>(llama_model_n_ctx_train(m));
  s.n_vocab = static_cast<uint32_t>(llama_vocab_n_tokens(llama_model_get_vocab(m)));
  return s;
}

usxf::AttentionKind KindOf(const AttentionShape& s) {
  if (s.n_kv_heads == s.n_heads) return usxf::AttentionKind::kMHA;
  return s.n_kv_heads == 1 ? usxf::AttentionKind::kMQA : usxf::AttentionKind::kGQA;
}

}  // namespace

Result<std::unique_ptr<Model>> Model::Load(const std::string& path) {
  VEXFS_RETURN_IF_ERROR(EnsureLlamaRuntime());
  // Fingerprinting first also proves the file is a GGUF before llama.cpp reads it.
  VEXFS_ASSIGN_OR_RETURN(ModelFingerprints fp, FingerprintGguf(path));
  llama_model_params params = llama_model_default_params();
  params.n_gpu_layers = 0;
  llama_model* handle = llama_model_load_from_file(path.c_str(), params);
  if (handle == nullptr) {
    return Status::Corruption(path + ": llama.cpp could not load the model (missing or " +
                              "malformed tensors or metadata; VEXFS_LLAMA_LOG=1 shows why)");
  }
  std::unique_ptr<Model> model(new Model());
  model->path_ = path;
  model->model_ = handle;
  model->fingerprints_ = std::move(fp);
  VEXFS_RETURN_IF_ERROR(CheckSupported(handle, path));
  model->shape_ = ReadShape(handle, model->fingerprints_.arch);
  return model;
}

Model::~Model() {
  if (model_ != nullptr) llama_model_free(model_);
}

const llama_vocab* Model::vocab() const { return llama_model_get_vocab(model_); }

Result<std::vector<int32_t>> Model::Tokenize(const std::string& text) const {
  const bool add_bos = llama_vocab_get_add_bos(vocab());
  // Control tokens written in the text ("<|im_start|>" of a chat template) are
  // those tokens, as llama.cpp's own tools and Hugging Face tokenizers read them.
  const bool parse_special = true;
  const int32_t text_len = static_cast<int32_t>(text.size());
  std::vector<int32_t> tokens(text.size() + 2);
  int32_t n = llama_tokenize(vocab(), text.data(), text_len, tokens.data(),
                             static_cast<int32_t>(tokens.size()), add_bos, parse_special);
  if (n < 0) {
    tokens.resize(static_cast<size_t>(-n));
    n = llama_tokenize(vocab(), text.data(), text_len, tokens.data(),
                       static_cast<int32_t>(tokens.size()), add_bos, parse_special);
  }
  if (n < 0) return Status::InvalidArgument("the prompt could not be tokenized");
  tokens.resize(static_cast<size_t>(n));
  return tokens;
}

std::string Model::Detokenize(const std::vector<int32_t>& tokens) const {
  std::string text;
  char buf[256];
  for (int32_t t : tokens) {
    const int32_t n = llama_token_to_piece(vocab(), t, buf, sizeof(buf), 0, true);
    if (n > 0) text.append(buf, static_cast<size_t>(n));
  }
  return text;
}

usxf::KvCacheInfo Model::DescribeKv() const {
  usxf::KvCacheInfo kv;
  kv.arch = fingerprints_.arch;
  kv.weights_fingerprint = fingerprints_.weights;
  kv.hparams_fingerprint = fingerprints_.hparams;
  kv.tokenizer_fingerprint = fingerprints_.tokenizer;
  kv.n_layers = shape_.n_layers;
  kv.n_heads.assign(shape_.n_layers, shape_.n_heads);
  kv.n_kv_heads.assign(shape_.n_layers, shape_.n_kv_heads);
  kv.k_head_dim.assign(shape_.n_layers, shape_.k_head_dim);
  kv.v_head_dim.assign(shape_.n_layers, shape_.v_head_dim);
  kv.attention = KindOf(shape_);
  kv.rope = shape_.rope;
  kv.rope_freq_base = shape_.rope_freq_base;
  kv.rope_freq_scale = shape_.rope_freq_scale;
  kv.k_after_rope = shape_.rope != usxf::RopeType::kNone;
  kv.runtime = RuntimeName();
  return kv;
}

}  // namespace vexfs::kv
