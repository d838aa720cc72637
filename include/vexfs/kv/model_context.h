// One llama.cpp context over a loaded Model, driven the way the KV tools need it:
// prefill a prompt, continue greedily while keeping every step's logits, and move
// one sequence's state out (llama_state_seq_get_data) and in (set_data).
//
// Thread-safety: a ModelContext is used from one thread at a time.
#ifndef VEXFS_KV_SESSION_H_
#define VEXFS_KV_SESSION_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "vexfs/kv/cache_convert.h"
#include "vexfs/kv/model.h"
#include "vexfs/status.h"

// The public API: exported from libvexfs.so, which is built with hidden visibility.
#pragma GCC visibility push(default)

struct llama_context;

namespace vexfs::kv {

// How a context keeps its cache: the knobs that change the state blob.
struct RuntimeSettings {
  CacheType k_type = CacheType::kF16;
  CacheType v_type = CacheType::kF16;
  bool flash_attn = true;   // llama.cpp keeps V transposed when flash attention is off
  uint32_t n_seq_max = 1;   // sequences the context serves
  bool kv_unified = false;  // one stream for all sequences (else one per sequence)
  int32_t seq_id = 0;       // the sequence captured from or restored into
  int threads = 0;          // 0: every core

  uint32_t NStream() const { return kv_unified ? 1 : n_seq_max; }
  // The cache layout a context with these settings keeps for `shape`.
  CacheLayout Layout(const AttentionShape& shape) const;
  // kInvalidArgument for combinations llama.cpp refuses (quantised V without
  // flash attention, seq_id outside n_seq_max).
  Status Check() const;
  std::string Describe() const;  // "k=f16 v=f16 fa=on seqs=1 unified=no"
};

// Greedy steps: tokens[i] is the argmax of logits[i].
struct Continuation {
  std::vector<int32_t> tokens;
  std::vector<std::vector<float>> logits;
};

class ModelContext {
 public:
  // A fresh context of at least n_ctx cells.
  static Result<std::unique_ptr<ModelContext>> Create(const Model& model, const RuntimeSettings& s,
                                                 uint32_t n_ctx);
  ~ModelContext();
  ModelContext(const ModelContext&) = delete;
  ModelContext& operator=(const ModelContext&) = delete;

  // Decodes `tokens` at positions 0.. into settings.seq_id, one micro-batch at a
  // time (the same split for every caller, so results are comparable bit for
  // bit); keeps the last logits. `progress(done, total)` follows each piece.
  Status Prefill(const std::vector<int32_t>& tokens,
                 const std::function<void(uint64_t, uint64_t)>& progress = {});
  // Continues greedily for `steps` tokens from the pending logits.
  Result<Continuation> Greedy(uint32_t steps);
  // The logits the next token will be chosen from.
  const std::vector<float>& pending_logits() const { return pending_; }

  // The sequence's state blob as llama.cpp writes it.
  Result<std::string> ReadSeqState();
  // Loads a blob into settings.seq_id; afterwards generation continues at position
  // n_past from `pending` (the logits that belong to the last restored token).
  Status WriteSeqState(std::string_view blob, uint32_t n_past, std::vector<float> pending);

  const RuntimeSettings& settings() const { return settings_; }
  uint32_t n_past() const { return n_past_; }
  uint32_t n_ctx() const;

 private:
  ModelContext(const Model& model, RuntimeSettings s) : model_(model), settings_(s) {}
  Status Decode(const int32_t* tokens, uint32_t n, bool want_last_logits);

  const Model& model_;
  RuntimeSettings settings_;
  llama_context* ctx_ = nullptr;
  uint32_t n_past_ = 0;
  uint32_t n_ubatch_ = 0;
  std::vector<float> pending_;
};

// Index of the largest logit (the lowest index on ties).
int32_t Argmax(const std::vector<float>& logits);

}  // namespace vexfs::kv

#pragma GCC visibility pop

#endif  // VEXFS_KV_SESSION_H_
