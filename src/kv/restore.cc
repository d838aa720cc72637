// Restore (see restore.h): a verified state checked against the loaded model,
// then its blob rebuilt for the target context's settings and loaded.
#include "vexfs/kv/restore.h"

#include <algorithm>

#include "kv/stopwatch.h"
#include "vexfs/kv/blob_format.h"
#include "vexfs/kv/cache_convert.h"

namespace vexfs::kv {
namespace {

void Compare(std::string& diff, const char* what, bool same) {
  if (same) return;
  diff += diff.empty() ? "" : ", ";
  diff += what;
}

}  // namespace

Status CheckIdentity(const usxf::KvCacheInfo& info, const Model& model) {
  const usxf::KvCacheInfo want = model.DescribeKv();
  std::string diff;
  Compare(diff, "architecture", info.arch == want.arch);
  Compare(diff, "weights fingerprint", info.weights_fingerprint == want.weights_fingerprint);
  Compare(diff, "hyperparameters fingerprint", info.hparams_fingerprint == want.hparams_fingerprint);
  Compare(diff, "tokenizer fingerprint", info.tokenizer_fingerprint == want.tokenizer_fingerprint);
  Compare(diff, "layer count", info.n_layers == want.n_layers);
  Compare(diff, "heads", info.n_heads == want.n_heads);
  Compare(diff, "KV heads", info.n_kv_heads == want.n_kv_heads);
  Compare(diff, "K head dim", info.k_head_dim == want.k_head_dim);
  Compare(diff, "V head dim", info.v_head_dim == want.v_head_dim);
  Compare(diff, "RoPE", info.rope == want.rope && info.rope_freq_base == want.rope_freq_base &&
                        info.rope_freq_scale == want.rope_freq_scale &&
                        info.rope_scaling == want.rope_scaling);
  Compare(diff, "K-after-RoPE", info.k_after_rope == want.k_after_rope);
  if (diff.empty()) return Status::Ok();
  return Status::InvalidArgument("the state was made by another model: " + diff +
                                 " differ from " + model.path());
}

Result<std::string> BuildTargetBlob(const Model& model, const StateBundle& b,
                                    const RuntimeSettings& settings) {
  VEXFS_RETURN_IF_ERROR(settings.Check());
  const AttentionShape& a = model.shape();
  const BlobShape shape = a.blob();
  const CacheLayout layout = settings.Layout(a);
  VEXFS_ASSIGN_OR_RETURN(LayerBuffers buffers, FromCanonical(b.kv, shape, layout));
  SeqState s;
  s.seq_id = settings.seq_id;
  s.n_stream = settings.NStream();
  // llama.cpp reads the cells of any non-empty stream into the sequence's own
  // stream; writing them where it would have put them keeps the blob ordinary.
  s.stream = s.n_stream > 1 ? static_cast<uint32_t>(settings.seq_id) : 0;
  s.v_trans = layout.v_trans;
  if (b.info.positions_contiguous) {
    for (uint32_t i = 0; i < b.kv.n_tokens; ++i) {
      s.positions.push_back(static_cast<int32_t>(b.info.position_start + i));
    }
  } else {
    s.positions = b.info.positions;
  }
  for (uint32_t l = 0; l < a.n_layers; ++l) {
    s.layers.push_back({layout.k_type, layout.v_type, buffers.k[l], buffers.v[l]});
  }
  return BuildSeqState(s, shape);
}

Result<std::unique_ptr<ModelContext>> RestoreBundle(const Model& model, const StateBundle& b,
                                               const RuntimeSettings& settings,
                                               uint32_t extra_tokens, RestoreTimings* timings,
                                               std::string* loaded_blob) {
  Stopwatch clock;
  VEXFS_RETURN_IF_ERROR(CheckIdentity(b.info, model));
  if (b.next_logits.size() != model.shape().n_vocab) {
    return Status::InvalidArgument("kv.next_logits has " + std::to_string(b.next_logits.size()) +
                                   " entries; the model's vocabulary has " +
                                   std::to_string(model.shape().n_vocab));
  }
  int64_t last_pos = b.info.positions_contiguous ? b.info.position_start + b.kv.n_tokens - 1 : 0;
  for (int32_t p : b.info.positions) last_pos = std::max<int64_t>(last_pos, p);
  VEXFS_ASSIGN_OR_RETURN(std::string blob, BuildTargetBlob(model, b, settings));
  const uint32_t n_past = static_cast<uint32_t>(last_pos + 1);
  if (timings != nullptr) timings->rebuild_seconds = clock.Seconds();

  VEXFS_ASSIGN_OR_RETURN(auto context, ModelContext::Create(model, settings, n_past + extra_tokens + 1));
  clock.Restart();
  VEXFS_RETURN_IF_ERROR(context->WriteSeqState(blob, n_past, b.next_logits));
  if (timings != nullptr) timings->load_seconds = clock.Seconds();
  if (loaded_blob != nullptr) *loaded_blob = std::move(blob);
  return context;
}

Result<std::unique_ptr<ModelContext>> RestoreFile(const Model& model, const std::string& path,
                                             const usxf::Keyring* keyring,
                                             const RuntimeSettings& settings,
                                             uint32_t extra_tokens, RestoreTimings* timings) {
  Stopwatch clock;
  VEXFS_ASSIGN_OR_RETURN(StateBundle b, ReadStateFile(path, keyring));
  if (timings != nullptr) timings->verify_seconds = clock.Seconds();
  return RestoreBundle(model, b, settings, extra_tokens, timings);
}

}  // namespace vexfs::kv
