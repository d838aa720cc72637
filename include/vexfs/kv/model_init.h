// Random-weight models of real architectures with real tokenizers, built through
// llama.cpp's public llama_model_init_from_user and saved as GGUF: what the tests,
// the demo and the benchmarks migrate, since no trained weights can be fetched
// here. Weights are N(0, stdev) from a seeded generator (the same seed gives the
// same file); norm weights are 1. Small scales make degenerate text (one token
// repeated); docs/kv.md gives scales that make varied continuations.
//
// Thread-safety: free function; safe from one thread at a time per output path.
#ifndef VEXFS_KV_MODEL_INIT_H_
#define VEXFS_KV_MODEL_INIT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "vexfs/status.h"

// The public API: exported from libvexfs.so, which is built with hidden visibility.
#pragma GCC visibility push(default)

namespace vexfs::kv {

struct ModelShape {
  uint32_t n_layers = 0;
  uint32_t n_heads = 0;
  uint32_t n_kv_heads = 0;
  uint32_t head_dim = 0;
  uint32_t ffn = 0;
  uint32_t n_embd() const { return n_heads * head_dim; }
};

// n normal(0, stdev) values that depend only on the tensor's name and the seed
// (splitmix64 and Box-Muller, so the same on every C++ library): random weights
// that any model builder, in any call order, reproduces exactly.
std::vector<float> SeededGaussian(std::string_view tensor_name, uint64_t seed, size_t n,
                                  float stdev);

// "tiny" (2 layers, 4 heads, 2 KV heads, head dim 64, FFN 512), "qwen2.5-0.5b"
// (24, 14, 2, 64, 4864) or "L,H,KV,D,FFN". kInvalidArgument names what is wrong.
Result<ModelShape> ParseModelShape(const std::string& text);

struct ModelInitOptions {
  std::string arch = "qwen2";   // only qwen2 is built today
  ModelShape shape;
  uint64_t seed = 1;
  float stdev = 0.2f;
  bool f16_weights = true;      // matrices in f16 (norms and biases stay f32)
  std::string vocab_path;       // tokenizer GGUF; empty: VocabPath(arch)
  std::string output_path;
};

// Builds the model and writes it atomically to options.output_path.
Status InitRandomModel(const ModelInitOptions& options);

}  // namespace vexfs::kv

#pragma GCC visibility pop

#endif  // VEXFS_KV_MODEL_INIT_H_
