// Builds random BERT GGUFs (see bert_model_init.h). The tensor list and the
// "bert.*" keys are those llama.cpp's BERT loader reads (src/models/bert.cpp of
// the pinned release): token, token-type and position embeddings with a layer
// norm, then per layer separate Q/K/V with biases, an output projection, a GELU
// feed-forward, and two post-norms.
//
// The file is written with gguf_write_to_file from the description and the bytes
// llama.cpp was given, not with llama_model_save_to_file: the pinned release's saver
// leaves token_embd.weight out of models without an output head (such as BERT).
#include "index/bert_model_init.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <map>
#include <string_view>
#include <vector>

#include "ggml-backend.h"
#include "ggml.h"
#include "kv/gguf_ptr.h"
#include "kv/llama_runtime.h"
#include "llama.h"
#include "vexfs/kv/model_init.h"

namespace vexfs::index::test {
namespace {

struct GgmlFree {
  void operator()(ggml_context* c) const { ggml_free(c); }
};
struct ModelFree {
  void operator()(llama_model* m) const { llama_model_free(m); }
};

struct FillSpec {
  uint64_t seed;
  float stdev;
  std::map<std::string, std::vector<char>> bytes;  // what each tensor was given
};

// Each tensor's values depend only on its name and the seed, so llama.cpp may
// call this in any order. Layer norms start as the identity (weight 1, bias 0).
void FillTensor(ggml_tensor* tensor, void* userdata) {
  auto* spec = static_cast<FillSpec*>(userdata);
  const std::string_view name = ggml_get_name(tensor);
  const size_t n = static_cast<size_t>(ggml_nelements(tensor));
  std::vector<float> values(n, 0.0f);
  if (name.ends_with("norm.weight")) {
    std::fill(values.begin(), values.end(), 1.0f);
  } else if (!name.ends_with("norm.bias")) {
    values = kv::SeededGaussian(name, spec->seed, n, spec->stdev);
  }
  std::vector<char>& bytes = spec->bytes[std::string(name)];
  if (tensor->type == GGML_TYPE_F16) {
    bytes.resize(n * sizeof(ggml_fp16_t));
    ggml_fp32_to_fp16_row(values.data(), reinterpret_cast<ggml_fp16_t*>(bytes.data()),
                          static_cast<int64_t>(n));
  } else {
    bytes.resize(n * sizeof(float));
    std::memcpy(bytes.data(), values.data(), bytes.size());
  }
  ggml_backend_tensor_set(tensor, bytes.data(), 0, bytes.size());
}

void SetBertHparams(gguf_context* g, const BertModelOptions& o) {
  const BertShape& s = o.shape;
  gguf_set_val_str(g, "general.architecture", "bert");
  const std::string name = "vexfs-random-bert-" + std::to_string(s.n_layers) + "x" +
                           std::to_string(s.n_embd) + "-seed" + std::to_string(o.seed);
  gguf_set_val_str(g, "general.name", name.c_str());
  gguf_set_val_u32(g, "general.file_type", o.f16_weights ? 1 : 0);
  gguf_set_val_u32(g, "bert.block_count", s.n_layers);
  gguf_set_val_u32(g, "bert.context_length", s.n_ctx);
  gguf_set_val_u32(g, "bert.embedding_length", s.n_embd);
  gguf_set_val_u32(g, "bert.feed_forward_length", s.ffn);
  gguf_set_val_u32(g, "bert.attention.head_count", s.n_heads);
  gguf_set_val_f32(g, "bert.attention.layer_norm_epsilon", 1e-12f);
  gguf_set_val_bool(g, "bert.attention.causal", false);
  gguf_set_val_u32(g, "bert.pooling_type", o.pooling);
}

void AddBertTensors(gguf_context* g, ggml_context* meta, const BertModelOptions& o,
                    int64_t n_vocab, int64_t n_token_types) {
  const BertShape& s = o.shape;
  const ggml_type mat = o.f16_weights ? GGML_TYPE_F16 : GGML_TYPE_F32;
  const int64_t e = s.n_embd, f = s.ffn;
  auto add = [&](const std::string& name, ggml_type type, int64_t a, int64_t b) {
    ggml_tensor* t = b > 0 ? ggml_new_tensor_2d(meta, type, a, b) : ggml_new_tensor_1d(meta, type, a);
    ggml_set_name(t, name.c_str());
    gguf_add_tensor(g, t);
  };
  add("token_embd.weight", mat, e, n_vocab);
  add("token_types.weight", GGML_TYPE_F32, e, n_token_types);
  add("position_embd.weight", GGML_TYPE_F32, e, s.n_ctx);
  add("token_embd_norm.weight", GGML_TYPE_F32, e, 0);
  add("token_embd_norm.bias", GGML_TYPE_F32, e, 0);
  for (uint32_t l = 0; l < s.n_layers; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    for (const char* proj : {"attn_q", "attn_k", "attn_v", "attn_output"}) {
      add(p + proj + ".weight", mat, e, e);
      add(p + proj + ".bias", GGML_TYPE_F32, e, 0);
    }
    add(p + "attn_output_norm.weight", GGML_TYPE_F32, e, 0);
    add(p + "attn_output_norm.bias", GGML_TYPE_F32, e, 0);
    add(p + "ffn_up.weight", mat, e, f);
    add(p + "ffn_up.bias", GGML_TYPE_F32, f, 0);
    add(p + "ffn_down.weight", mat, f, e);
    add(p + "ffn_down.bias", GGML_TYPE_F32, e, 0);
    add(p + "layer_output_norm.weight", GGML_TYPE_F32, e, 0);
    add(p + "layer_output_norm.bias", GGML_TYPE_F32, e, 0);
  }
}

Status CheckOptions(const BertModelOptions& o) {
  const BertShape& s = o.shape;
  if (s.n_layers == 0 || s.n_embd == 0 || s.n_heads == 0 || s.ffn == 0 || s.n_ctx < 8) {
    return Status::InvalidArgument("bert-init: every shape dimension must be positive");
  }
  if (s.n_embd % s.n_heads != 0) {
    return Status::InvalidArgument("bert-init: the width must be a multiple of the heads");
  }
  if (o.pooling > 3) return Status::InvalidArgument("bert-init: pooling must be 0-3");
  if (o.output_path.empty()) return Status::InvalidArgument("bert-init: no output path");
  return Status::Ok();
}

Result<uint32_t> ArrayLength(const gguf_context* g, const char* key, const std::string& path) {
  const int64_t k = gguf_find_key(g, key);
  if (k < 0 || gguf_get_kv_type(g, k) != GGUF_TYPE_ARRAY) {
    return Status::Corruption(path + ": no " + key + " array");
  }
  return static_cast<uint32_t>(gguf_get_arr_n(g, k));
}

uint32_t TokenTypeCount(const gguf_context* g) {
  const int64_t k = gguf_find_key(g, "tokenizer.ggml.token_type_count");
  return k >= 0 && gguf_get_kv_type(g, k) == GGUF_TYPE_UINT32 ? gguf_get_val_u32(g, k) : 2;
}

// Attaches the bytes llama.cpp accepted to the description and writes both.
Status SaveAtomically(gguf_context* meta, const FillSpec& spec, const std::string& path) {
  const int64_t n = gguf_get_n_tensors(meta);
  for (int64_t t = 0; t < n; ++t) {
    auto it = spec.bytes.find(gguf_get_tensor_name(meta, t));
    if (it == spec.bytes.end() || it->second.size() != gguf_get_tensor_size(meta, t)) {
      return Status::InvalidArgument(std::string("bert-init: llama.cpp did not take tensor ") +
                                     gguf_get_tensor_name(meta, t));
    }
    gguf_set_tensor_data(meta, it->first.c_str(), it->second.data());
  }
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  if (!gguf_write_to_file(meta, tmp.c_str(), /*only_meta=*/false)) {
    std::remove(tmp.c_str());
    return Status::IOError("bert-init: cannot write " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return Status::IOError("bert-init: cannot rename " + tmp + " to " + path);
  }
  return Status::Ok();
}

}  // namespace

Status BuildRandomBert(const BertModelOptions& o) {
  VEXFS_RETURN_IF_ERROR(CheckOptions(o));
  VEXFS_RETURN_IF_ERROR(kv::EnsureLlamaRuntime());
  const std::string vocab_path = o.vocab_path.empty() ? kv::VocabPath("bert-bge") : o.vocab_path;
  gguf_init_params vp{/*no_alloc=*/true, /*ctx=*/nullptr};
  kv::GgufPtr vocab(gguf_init_from_file(vocab_path.c_str(), vp));
  if (!vocab) {
    return Status::NotFound(vocab_path + ": tokenizer GGUF missing or unreadable "
                            "(scripts/fetch_llama.sh puts it there)");
  }
  VEXFS_ASSIGN_OR_RETURN(uint32_t n_vocab,
                         ArrayLength(vocab.get(), "tokenizer.ggml.tokens", vocab_path));

  kv::GgufPtr meta(gguf_init_empty());
  gguf_set_kv(meta.get(), vocab.get());  // the tokenizer.* keys, and bert.* ones overridden next
  SetBertHparams(meta.get(), o);
  const size_t n_tensors = 5 + 16 * size_t{o.shape.n_layers};
  ggml_init_params ip{n_tensors * ggml_tensor_overhead(), nullptr, /*no_alloc=*/true};
  std::unique_ptr<ggml_context, GgmlFree> tensors(ggml_init(ip));
  AddBertTensors(meta.get(), tensors.get(), o, n_vocab, TokenTypeCount(vocab.get()));

  FillSpec spec{o.seed, o.stdev, {}};
  llama_model_params mp = llama_model_default_params();
  mp.n_gpu_layers = 0;
  // llama.cpp checks the description against its BERT loader and fills every
  // tensor it creates; the model itself is not needed afterwards.
  std::unique_ptr<llama_model, ModelFree> model(
      llama_model_init_from_user(meta.get(), FillTensor, &spec, mp));
  if (!model) {
    return Status::InvalidArgument("bert-init: llama.cpp refused the model description "
                                   "(VEXFS_LLAMA_LOG=1 shows why)");
  }
  model.reset();
  return SaveAtomically(meta.get(), spec, o.output_path);
}

}  // namespace vexfs::index::test
