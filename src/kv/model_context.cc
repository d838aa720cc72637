// One llama.cpp context over a Model (see vexfs/kv/model_context.h): its cache layout, prefill,
// greedy steps with their logits, and one sequence's state out and in.
#include "vexfs/kv/model_context.h"

#include <algorithm>
#include <thread>

#include "llama.h"

namespace vexfs::kv {
namespace {

struct BatchFree {
  void operator()(llama_batch* b) const {
    llama_batch_free(*b);
    delete b;
  }
};

ggml_type GgmlType(CacheType t) { return static_cast<ggml_type>(static_cast<int32_t>(t)); }

}  // namespace

CacheLayout RuntimeSettings::Layout(const AttentionShape& shape) const {
  CacheLayout l;
  l.k_type = k_type;
  l.v_type = v_type;
  l.k_rotation = RuntimeRotation(k_type, shape.k_head_dim, /*for_k=*/true);
  l.v_rotation = RuntimeRotation(v_type, shape.v_head_dim, /*for_k=*/false);
  l.v_trans = !flash_attn;
  return l;
}

Status RuntimeSettings::Check() const {
  if (v_type == CacheType::kQ8_0 && !flash_attn) {
    return Status::InvalidArgument("a q8_0 V cache needs flash attention (llama.cpp refuses it)");
  }
  if (n_seq_max == 0 || n_seq_max > 256) return Status::InvalidArgument("sequences must be 1..256");
  if (seq_id < 0 || static_cast<uint32_t>(seq_id) >= n_seq_max) {
    return Status::InvalidArgument("sequence id " + std::to_string(seq_id) + " outside 0.." +
                                   std::to_string(n_seq_max - 1));
  }
  return Status::Ok();
}

std::string RuntimeSettings::Describe() const {
  return std::string("k=") + CacheTypeName(k_type) + " v=" + CacheTypeName(v_type) +
         " fa=" + (flash_attn ? "on" : "off") + " seqs=" + std::to_string(n_seq_max) +
         " unified=" + (kv_unified ? "yes" : "no") + " seq=" + std::to_string(seq_id);
}

Result<std::unique_ptr<ModelContext>> ModelContext::Create(const Model& model, const RuntimeSettings& s,
                                                 uint32_t n_ctx) {
  VEXFS_RETURN_IF_ERROR(s.Check());
  std::unique_ptr<ModelContext> context(new ModelContext(model, s));
  llama_context_params p = llama_context_default_params();
  const int threads = s.threads > 0 ? s.threads : static_cast<int>(std::thread::hardware_concurrency());
  // Every sequence gets n_ctx cells, as llama.cpp divides the context among them.
  p.n_ctx = std::max<uint32_t>(n_ctx, 16) * s.n_seq_max;
  p.n_batch = std::min<uint32_t>(p.n_ctx, 2048);
  p.n_ubatch = std::min<uint32_t>(p.n_batch, 512);
  p.n_seq_max = s.n_seq_max;
  p.kv_unified = s.kv_unified;
  p.n_threads = p.n_threads_batch = std::max(threads, 1);
  p.type_k = GgmlType(s.k_type);
  p.type_v = GgmlType(s.v_type);
  p.flash_attn_type = s.flash_attn ? LLAMA_FLASH_ATTN_TYPE_ENABLED : LLAMA_FLASH_ATTN_TYPE_DISABLED;
  p.no_perf = true;
  context->ctx_ = llama_init_from_model(model.handle(), p);
  if (context->ctx_ == nullptr) {
    return Status::InvalidArgument("llama.cpp refused a context with " + s.Describe() +
                                   " (VEXFS_LLAMA_LOG=1 shows why)");
  }
  context->n_ubatch_ = p.n_ubatch;
  return context;
}

ModelContext::~ModelContext() {
  if (ctx_ != nullptr) llama_free(ctx_);
}

uint32_t ModelContext::n_ctx() const { return llama_n_ctx_seq(ctx_); }

Status ModelContext::Decode(const int32_t* tokens, uint32_t n, bool want_last_logits) {
  std::unique_ptr<llama_batch, BatchFree> batch(new llama_batch(llama_batch_init(n, 0, 1)));
  for (uint32_t i = 0; i < n; ++i) {
    batch->token[i] = tokens[i];
    batch->pos[i] = static_cast<llama_pos>(n_past_ + i);
    batch->n_seq_id[i] = 1;
    batch->seq_id[i][0] = settings_.seq_id;
    batch->logits[i] = want_last_logits && i + 1 == n;
  }
  batch->n_tokens = static_cast<int32_t>(n);
  if (n_past_ + n > n_ctx()) {
    return Status::InvalidArgument("the context holds " + std::to_string(n_ctx()) +
                                   " tokens; " + std::to_string(n_past_ + n) + " asked for");
  }
  const int32_t rc = llama_decode(ctx_, *batch);
  if (rc != 0) return Status::IOError("llama_decode failed with " + std::to_string(rc));
  n_past_ += n;
  if (want_last_logits) {
    const float* logits = llama_get_logits_ith(ctx_, static_cast<int32_t>(n) - 1);
    if (logits == nullptr) return Status::IOError("llama.cpp returned no logits");
    pending_.assign(logits, logits + model_.shape().n_vocab);
  }
  return Status::Ok();
}

Status ModelContext::Prefill(const std::vector<int32_t>& tokens,
                        const std::function<void(uint64_t, uint64_t)>& progress) {
  if (tokens.empty()) return Status::InvalidArgument("the prompt has no tokens");
  for (size_t done = 0; done < tokens.size();) {
    const uint32_t n = static_cast<uint32_t>(std::min<size_t>(n_ubatch_, tokens.size() - done));
    VEXFS_RETURN_IF_ERROR(Decode(tokens.data() + done, n, done + n == tokens.size()));
    done += n;
    if (progress) progress(done, tokens.size());
  }
  return Status::Ok();
}

Result<Continuation> ModelContext::Greedy(uint32_t steps) {
  if (pending_.empty()) return Status::InvalidArgument("nothing to continue: no logits yet");
  Continuation c;
  for (uint32_t i = 0; i < steps; ++i) {
    const int32_t token = Argmax(pending_);
    c.tokens.push_back(token);
    c.logits.push_back(pending_);
    VEXFS_RETURN_IF_ERROR(Decode(&token, 1, true));
  }
  return c;
}

Result<std::string> ModelContext::ReadSeqState() {
  const size_t size = llama_state_seq_get_size(ctx_, settings_.seq_id);
  std::string blob(size, '\0');
  const size_t written = llama_state_seq_get_data(
      ctx_, reinterpret_cast<uint8_t*>(blob.data()), blob.size(), settings_.seq_id);
  if (size == 0 || written != size) {
    return Status::IOError("llama_state_seq_get_data wrote " + std::to_string(written) +
                           " of " + std::to_string(size) + " bytes");
  }
  return blob;
}

Status ModelContext::WriteSeqState(std::string_view blob, uint32_t n_past, std::vector<float> pending) {
  if (n_past > n_ctx()) {
    return Status::InvalidArgument(std::to_string(n_past) + " tokens do not fit a context of " +
                                   std::to_string(n_ctx()));
  }
  const size_t read = llama_state_seq_set_data(
      ctx_, reinterpret_cast<const uint8_t*>(blob.data()), blob.size(), settings_.seq_id);
  if (read != blob.size()) {
    return Status::InvalidArgument("llama_state_seq_set_data refused the state (read " +
                                   std::to_string(read) + " of " + std::to_string(blob.size()) +
                                   " bytes)");
  }
  n_past_ = n_past;
  pending_ = std::move(pending);
  return Status::Ok();
}

int32_t Argmax(const std::vector<float>& logits) {
  return static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

}  // namespace vexfs::kv
