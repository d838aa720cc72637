// Building random-weight GGUF models of real architectures (see model_init.h):
// the shape given as text, seeded weights, and saving through llama.cpp.
#include "vexfs/kv/model_init.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <string_view>
#include <vector>

#include "common/file_util.h"
#include "ggml-backend.h"
#include "ggml.h"
#include "kv/gguf_ptr.h"
#include "kv/llama_runtime.h"
#include "llama.h"

namespace vexfs::kv {
namespace {

struct GgmlFree {
  void operator()(ggml_context* c) const { ggml_free(c); }
};

Result<uint32_t> ParseDim(std::string_view text, std::string_view what) {
  uint64_t v = 0;
  if (text.empty() || text.size() > 9) return Status::InvalidArgument("shape: bad " + std::string(what));
  for (char c : text) {
    if (c < '0' || c > '9') return Status::InvalidArgument("shape: bad " + std::string(what));
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  if (v == 0 || v > 65536) {
    return Status::InvalidArgument("shape: " + std::string(what) + " must be 1..65536");
  }
  return static_cast<uint32_t>(v);
}

// splitmix64: a tiny, fast generator whose output does not depend on the C++
// library, so a seed names the same model everywhere.
struct Rng {
  uint64_t state;
  uint64_t Next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double Uniform() { return (static_cast<double>(Next() >> 11) + 0.5) * 0x1.0p-53; }
};

uint64_t HashName(std::string_view name, uint64_t seed) {
  uint64_t h = 1469598103934665603ull ^ seed;
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
  return h;
}

struct FillSpec {
  uint64_t seed;
  float stdev;
};

// Called by llama.cpp for every tensor it created; each tensor's values depend
// only on its name and the seed, so the order of the calls does not matter.
void FillTensor(ggml_tensor* tensor, void* userdata) {
  const auto* spec = static_cast<const FillSpec*>(userdata);
  const std::string_view name = ggml_get_name(tensor);
  const size_t n = static_cast<size_t>(ggml_nelements(tensor));
  std::vector<float> values = name.find("norm") != std::string_view::npos
                                  ? std::vector<float>(n, 1.0f)
                                  : SeededGaussian(name, spec->seed, n, spec->stdev);
  if (tensor->type == GGML_TYPE_F16) {
    std::vector<ggml_fp16_t> half(n);
    ggml_fp32_to_fp16_row(values.data(), half.data(), static_cast<int64_t>(n));
    ggml_backend_tensor_set(tensor, half.data(), 0, n * sizeof(ggml_fp16_t));
  } else {
    ggml_backend_tensor_set(tensor, values.data(), 0, n * sizeof(float));
  }
}

void SetQwen2Hparams(gguf_context* g, const ModelInitOptions& o) {
  const ModelShape& s = o.shape;
  gguf_set_val_str(g, "general.architecture", "qwen2");
  const std::string name = "vexfs-random-qwen2-" + std::to_string(s.n_layers) + "x" +
                           std::to_string(s.n_embd()) + "-seed" + std::to_string(o.seed);
  gguf_set_val_str(g, "general.name", name.c_str());
  gguf_set_val_u32(g, "general.file_type", o.f16_weights ? 1 : 0);
  gguf_set_val_u32(g, "qwen2.block_count", s.n_layers);
  gguf_set_val_u32(g, "qwen2.context_length", 32768);
  gguf_set_val_u32(g, "qwen2.embedding_length", s.n_embd());
  gguf_set_val_u32(g, "qwen2.feed_forward_length", s.ffn);
  gguf_set_val_u32(g, "qwen2.attention.head_count", s.n_heads);
  gguf_set_val_u32(g, "qwen2.attention.head_count_kv", s.n_kv_heads);
  gguf_set_val_f32(g, "qwen2.rope.freq_base", 1000000.0f);
  gguf_set_val_f32(g, "qwen2.attention.layer_norm_rms_epsilon", 1e-6f);
  gguf_set_val_u64(g, "vexfs.init.seed", o.seed);
  gguf_set_val_f32(g, "vexfs.init.stdev", o.stdev);
}

// Lists every tensor of a Qwen2 model (tied output embedding) with its type and
// shape; llama_model_init_from_user creates exactly these.
void AddQwen2Tensors(gguf_context* g, ggml_context* meta, const ModelInitOptions& o,
                     int64_t n_vocab) {
  const ModelShape& s = o.shape;
  const ggml_type mat = o.f16_weights ? GGML_TYPE_F16 : GGML_TYPE_F32;
  const int64_t e = s.n_embd(), kv = int64_t{s.n_kv_heads} * s.head_dim, f = s.ffn;
  auto add = [&](const std::string& name, ggml_type type, int64_t a, int64_t b) {
    ggml_tensor* t = b > 0 ? ggml_new_tensor_2d(meta, type, a, b) : ggml_new_tensor_1d(meta, type, a);
    ggml_set_name(t, name.c_str());
    gguf_add_tensor(g, t);
  };
  add("token_embd.weight", mat, e, n_vocab);
  add("output_norm.weight", GGML_TYPE_F32, e, 0);
  for (uint32_t l = 0; l < s.n_layers; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    add(p + "attn_norm.weight", GGML_TYPE_F32, e, 0);
    add(p + "attn_q.weight", mat, e, e);
    add(p + "attn_q.bias", GGML_TYPE_F32, e, 0);
    add(p + "attn_k.weight", mat, e, kv);
    add(p + "attn_k.bias", GGML_TYPE_F32, kv, 0);
    add(p + "attn_v.weight", mat, e, kv);
    add(p + "attn_v.bias", GGML_TYPE_F32, kv, 0);
    add(p + "attn_output.weight", mat, e, e);
    add(p + "ffn_norm.weight", GGML_TYPE_F32, e, 0);
    add(p + "ffn_gate.weight", mat, e, f);
    add(p + "ffn_up.weight", mat, e, f);
    add(p + "ffn_down.weight", mat, f, e);
  }
}

Status CheckOptions(const ModelInitOptions& o) {
  if (o.arch != "qwen2") {
    return Status::NotSupported("model-init: architecture '" + o.arch + "' (only qwen2)");
  }
  const ModelShape& s = o.shape;
  if (s.n_layers == 0 || s.n_heads == 0 || s.n_kv_heads == 0 || s.head_dim == 0 || s.ffn == 0) {
    return Status::InvalidArgument("model-init: every shape dimension must be positive");
  }
  if (s.n_heads % s.n_kv_heads != 0) {
    return Status::InvalidArgument("model-init: heads must be a multiple of KV heads");
  }
  if (s.head_dim % 2 != 0) return Status::InvalidArgument("model-init: RoPE needs an even head dim");
  if (!(o.stdev > 0.0f) || !std::isfinite(o.stdev)) {
    return Status::InvalidArgument("model-init: stdev must be positive and finite");
  }
  if (o.output_path.empty()) return Status::InvalidArgument("model-init: no output path");
  return Status::Ok();
}

}  // namespace

Result<ModelShape> ParseModelShape(const std::string& text) {
  if (text == "tiny") return ModelShape{2, 4, 2, 64, 512};
  if (text == "qwen2.5-0.5b") return ModelShape{24, 14, 2, 64, 4864};
  std::vector<std::string_view> parts;
  std::string_view rest = text;
  for (size_t comma; (comma = rest.find(',')) != std::string_view::npos; rest.remove_prefix(comma + 1)) {
    parts.push_back(rest.substr(0, comma));
  }
  parts.push_back(rest);
  if (parts.size() != 5) {
    return Status::InvalidArgument("shape '" + text +
                                   "': expected tiny, qwen2.5-0.5b or L,H,KV,D,FFN");
  }
  ModelShape s;
  VEXFS_ASSIGN_OR_RETURN(s.n_layers, ParseDim(parts[0], "layers"));
  VEXFS_ASSIGN_OR_RETURN(s.n_heads, ParseDim(parts[1], "heads"));
  VEXFS_ASSIGN_OR_RETURN(s.n_kv_heads, ParseDim(parts[2], "KV heads"));
  VEXFS_ASSIGN_OR_RETURN(s.head_dim, ParseDim(parts[3], "head dim"));
  VEXFS_ASSIGN_OR_RETURN(s.ffn, ParseDim(parts[4], "FFN size"));
  return s;
}

Status InitRandomModel(const ModelInitOptions& o) {
  VEXFS_RETURN_IF_ERROR(CheckOptions(o));
  VEXFS_RETURN_IF_ERROR(EnsureLlamaRuntime());
  const std::string vocab_path = o.vocab_path.empty() ? VocabPath(o.arch) : o.vocab_path;
  gguf_init_params vp{/*no_alloc=*/true, /*ctx=*/nullptr};
  GgufPtr vocab(gguf_init_from_file(vocab_path.c_str(), vp));
  if (!vocab) return Status::NotFound(vocab_path + ": tokenizer GGUF missing or unreadable");
  const int64_t tokens_key = gguf_find_key(vocab.get(), "tokenizer.ggml.tokens");
  if (tokens_key < 0 || gguf_get_kv_type(vocab.get(), tokens_key) != GGUF_TYPE_ARRAY) {
    return Status::Corruption(vocab_path + ": no tokenizer.ggml.tokens array");
  }
  const int64_t n_vocab = static_cast<int64_t>(gguf_get_arr_n(vocab.get(), tokens_key));

  GgufPtr meta(gguf_init_empty());
  gguf_set_kv(meta.get(), vocab.get());
  SetQwen2Hparams(meta.get(), o);
  const size_t n_tensors = 2 + 12 * size_t{o.shape.n_layers};
  ggml_init_params ip{n_tensors * ggml_tensor_overhead(), nullptr, /*no_alloc=*/true};
  std::unique_ptr<ggml_context, GgmlFree> tensors(ggml_init(ip));
  AddQwen2Tensors(meta.get(), tensors.get(), o, n_vocab);

  FillSpec spec{o.seed, o.stdev};
  llama_model_params mp = llama_model_default_params();
  mp.n_gpu_layers = 0;
  llama_model* model = llama_model_init_from_user(meta.get(), FillTensor, &spec, mp);
  if (model == nullptr) {
    return Status::InvalidArgument("model-init: llama.cpp refused the model description "
                                   "(VEXFS_LLAMA_LOG=1 shows why)");
  }
  // Saved under a temporary name and renamed, so a reader never sees half a model.
  const std::string tmp = o.output_path + ".tmp." + std::to_string(::getpid());
  llama_model_save_to_file(model, tmp.c_str());
  llama_model_free(model);
  if (::access(tmp.c_str(), F_OK) != 0) {
    return Status::IOError("model-init: llama.cpp did not write " + tmp);
  }
  if (std::rename(tmp.c_str(), o.output_path.c_str()) != 0) {
    Status s = ErrnoStatus("rename " + tmp + " to " + o.output_path);
    std::remove(tmp.c_str());
    return s;
  }
  return Status::Ok();
}

std::vector<float> SeededGaussian(std::string_view tensor_name, uint64_t seed, size_t n,
                                  float stdev) {
  std::vector<float> values(n);
  Rng rng{HashName(tensor_name, seed)};
  for (size_t i = 0; i < n; i += 2) {  // Box-Muller, two values per draw
    const double r = std::sqrt(-2.0 * std::log(rng.Uniform()));
    const double a = 2.0 * M_PI * rng.Uniform();
    values[i] = static_cast<float>(r * std::cos(a)) * stdev;
    if (i + 1 < n) values[i + 1] = static_cast<float>(r * std::sin(a)) * stdev;
  }
  return values;
}

}  // namespace vexfs::kv
