// A llama.cpp model loaded for KV-cache work: the runtime's handle plus what a KV
// section must record about it (identity fingerprints and attention structure).
// The same path serves a user's real GGUF file and the random-weight test models
// that model_init.h makes.
//
// Thread-safety: a loaded Model is read-only; contexts made from it (ModelContext) may
// live on different threads.
#ifndef VEXFS_KV_MODEL_H_
#define VEXFS_KV_MODEL_H_

#include <memory>
#include <string>
#include <vector>

#include "vexfs/kv/blob_format.h"
#include "vexfs/kv/model_fingerprint.h"
#include "vexfs/status.h"
#include "vexfs/usxf_kv.h"

// The public API: exported from libvexfs.so, which is built with hidden visibility.
#pragma GCC visibility push(default)

struct llama_model;
struct llama_vocab;

namespace vexfs::kv {

// What the attention state of one token looks like in this model.
struct AttentionShape {
  uint32_t n_layers = 0;
  uint32_t n_heads = 0;
  uint32_t n_kv_heads = 0;
  uint32_t k_head_dim = 0;
  uint32_t v_head_dim = 0;
  usxf::RopeType rope = usxf::RopeType::kNone;
  double rope_freq_base = 10000.0;
  double rope_freq_scale = 1.0;
  uint32_t n_ctx_train = 0;
  uint32_t n_vocab = 0;

  uint32_t k_row() const { return n_kv_heads * k_head_dim; }  // elements per token
  uint32_t v_row() const { return n_kv_heads * v_head_dim; }
  // What every state blob of this model must look like.
  BlobShape blob() const { return {n_layers, k_row(), v_row()}; }
};

class Model {
 public:
  // Loads `path` through llama_model_load_from_file (CPU, mmap) and fingerprints
  // it. kNotFound / kCorruption name the file; kNotSupported for an architecture
  // whose KV cache this adapter does not understand (only plain per-layer K/V
  // caches without sliding windows or recurrent state are accepted).
  static Result<std::unique_ptr<Model>> Load(const std::string& path);
  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  const std::string& path() const { return path_; }
  const ModelFingerprints& fingerprints() const { return fingerprints_; }
  const AttentionShape& shape() const { return shape_; }
  llama_model* handle() const { return model_; }
  const llama_vocab* vocab() const;

  // Token ids of `text` as the model's tokenizer splits it (with BOS when the
  // model asks for one); control tokens written in the text are those tokens.
  Result<std::vector<int32_t>> Tokenize(const std::string& text) const;
  // The text of `tokens`, for showing a continuation.
  std::string Detokenize(const std::vector<int32_t>& tokens) const;

  // A KvCacheInfo with this model's identity and structure (no tokens yet).
  usxf::KvCacheInfo DescribeKv() const;

 private:
  Model() = default;
  std::string path_;
  llama_model* model_ = nullptr;
  ModelFingerprints fingerprints_;
  AttentionShape shape_;
};

}  // namespace vexfs::kv

#pragma GCC visibility pop

#endif  // VEXFS_KV_MODEL_H_
