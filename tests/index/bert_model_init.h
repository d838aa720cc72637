// Random-weight BERT sentence-embedding models for the GGUF embedder's tests and
// measurements: built through llama.cpp's public llama_model_init_from_user with
// the real WordPiece tokenizer of bge (ggml-vocab-bert-bge.gguf, shipped with
// llama.cpp) and saved as an ordinary GGUF file, which the embedder then loads
// like any user's model. No trained weights can be fetched here, so these prove
// the plumbing (tokenizer, pooling, batching, truncation, identity), never quality.
//
// Thread-safety: free function; one caller per output path.
#ifndef VEXFS_TESTS_INDEX_BERT_MODEL_INIT_H_
#define VEXFS_TESTS_INDEX_BERT_MODEL_INIT_H_

#include <cstdint>
#include <string>

#include "vexfs/status.h"

namespace vexfs::index::test {

struct BertShape {
  uint32_t n_layers = 2;
  uint32_t n_embd = 64;
  uint32_t n_heads = 4;
  uint32_t ffn = 128;
  uint32_t n_ctx = 128;  // the training context: position embeddings and the text limit
};

// MiniLM-L6 / all-MiniLM-L6-v2 shape, for throughput measurements.
inline constexpr BertShape kMiniLmL6Shape{6, 384, 12, 1536, 512};

struct BertModelOptions {
  BertShape shape;
  uint32_t pooling = 1;      // bert.pooling_type as llama.cpp numbers it: 0 none, 1 mean,
                             // 2 cls, 3 last
  uint64_t seed = 1;
  float stdev = 0.05f;       // weights N(0, stdev); layer norms start at weight 1, bias 0
  bool f16_weights = false;  // matrices in f16 rather than f32
  std::string vocab_path;    // tokenizer GGUF; empty: kv::VocabPath("bert-bge")
  std::string output_path;
};

// Builds the model and writes it atomically to options.output_path. kNotFound
// when the tokenizer GGUF is missing (scripts/fetch_llama.sh puts it in place).
Status BuildRandomBert(const BertModelOptions& options);

}  // namespace vexfs::index::test

#endif  // VEXFS_TESTS_INDEX_BERT_MODEL_INIT_H_
