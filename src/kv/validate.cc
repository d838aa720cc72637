// The causal validation protocol (see validate.h): tensor digests, slot probes,
// continuations against re-prefill and the source's reference, and the control.
#include "vexfs/kv/validate.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kv/stopwatch.h"
#include "vexfs/kv/blob_format.h"
#include "vexfs/kv/cache_convert.h"
#include "vexfs/kv/restore.h"

namespace vexfs::kv {
namespace {

// Every value of a canonical cache as f32 with any rotation undone: what the
// attention actually sees, comparable across cache types.
std::vector<float> PlainValues(const CanonicalKv& kv, const BlobShape& shape) {
  std::vector<float> out;
  const std::string_view data = kv.data;
  for (uint32_t l = 0; l < shape.n_layers; ++l) {
    std::vector<float> k = DecodeToF32(kv.type, data.substr(kv.KOffset(shape, l), kv.KBytes(shape)));
    std::vector<float> v = DecodeToF32(kv.type, data.substr(kv.VOffset(shape, l), kv.VBytes(shape)));
    if (kv.k_rotation != 0) ApplyHadamard(k, kv.k_rotation);
    if (kv.v_rotation != 0) ApplyHadamard(v, kv.v_rotation);
    out.insert(out.end(), k.begin(), k.end());
    out.insert(out.end(), v.begin(), v.end());
  }
  return out;
}

// The control: the same values with the V rows of every layer reversed, so each
// key is paired with another token's value. (Reordering whole K+V rows would not
// do: attention over the cached tokens does not depend on their order.)
CanonicalKv Corrupted(const CanonicalKv& kv, const BlobShape& shape) {
  CanonicalKv bad = kv;
  const uint64_t row = CacheBytes(kv.type, shape.v_row);
  for (uint32_t l = 0; l < shape.n_layers; ++l) {
    const uint64_t offset = kv.VOffset(shape, l);
    for (uint32_t t = 0; t < kv.n_tokens; ++t) {
      std::memcpy(&bad.data[offset + t * row], &kv.data[offset + (kv.n_tokens - 1 - t) * row], row);
    }
  }
  return bad;
}

double MaxAbsDiff(const std::vector<float>& a, const std::vector<float>& b) {
  double m = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) m = std::max(m, std::fabs(double(a[i]) - b[i]));
  return m;
}

bool BitEqual(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

ContinuationCheck CompareFull(const Continuation& got, const Continuation& want) {
  ContinuationCheck c;
  c.available = true;
  for (size_t i = 0; i < std::min(got.tokens.size(), want.tokens.size()); ++i) {
    const bool same = got.tokens[i] == want.tokens[i];
    c.top1_agreement += same;
    if (!same && c.first_divergence < 0) c.first_divergence = static_cast<int32_t>(i);
    c.logits_bit_exact += BitEqual(got.logits[i], want.logits[i]);
    const double d = MaxAbsDiff(got.logits[i], want.logits[i]);
    c.max_abs_logit_diff = std::max(c.max_abs_logit_diff, d);
    if (c.first_divergence < 0 || c.first_divergence == static_cast<int32_t>(i)) {
      c.max_abs_logit_diff_aligned = std::max(c.max_abs_logit_diff_aligned, d);
    }
  }
  c.steps = static_cast<uint32_t>(std::min(got.tokens.size(), want.tokens.size()));
  c.tokens_equal = got.tokens == want.tokens;
  return c;
}

// Against the source's record: bit-exactness by digest, size of the difference
// over the logits the source kept.
ContinuationCheck CompareWithReference(const Continuation& got, const Reference& ref) {
  ContinuationCheck c;
  c.available = true;
  const size_t n = std::min(got.tokens.size(), ref.steps.size());
  for (size_t i = 0; i < n; ++i) {
    const ReferenceStep& s = ref.steps[i];
    const bool same = got.tokens[i] == s.token;
    c.top1_agreement += same;
    if (!same && c.first_divergence < 0) c.first_divergence = static_cast<int32_t>(i);
    c.logits_bit_exact += LogitsDigest(got.logits[i]) == s.logits_sha256;
    double d = 0;
    for (const auto& [id, logit] : s.top) {
      if (id >= 0 && static_cast<size_t>(id) < got.logits[i].size()) {
        d = std::max(d, std::fabs(double(got.logits[i][id]) - logit));
      }
    }
    c.max_abs_logit_diff = std::max(c.max_abs_logit_diff, d);
    if (c.first_divergence < 0 || c.first_divergence == static_cast<int32_t>(i)) {
      c.max_abs_logit_diff_aligned = std::max(c.max_abs_logit_diff_aligned, d);
    }
  }
  c.steps = static_cast<uint32_t>(n);
  c.tokens_equal = c.top1_agreement == n;
  return c;
}

bool SameLayers(const SeqState& a, const SeqState& b) {
  if (a.positions != b.positions || a.layers.size() != b.layers.size()) return false;
  for (size_t l = 0; l < a.layers.size(); ++l) {
    if (a.layers[l].k != b.layers[l].k || a.layers[l].v != b.layers[l].v) return false;
  }
  return true;
}

Result<TensorCheck> CheckTensors(const Model& model, ModelContext& target, const std::string& loaded,
                                 const CanonicalKv& source, CanonicalKv* readback) {
  const BlobShape shape = model.shape().blob();
  VEXFS_ASSIGN_OR_RETURN(std::string blob, target.ReadSeqState());
  VEXFS_ASSIGN_OR_RETURN(SeqState got, ParseSeqState(blob, shape));
  VEXFS_ASSIGN_OR_RETURN(SeqState want, ParseSeqState(loaded, shape));
  TensorCheck t;
  t.layers = shape.n_layers;
  t.readback_equals_loaded = SameLayers(got, want);
  const CacheLayout layout = target.settings().Layout(model.shape());
  VEXFS_ASSIGN_OR_RETURN(*readback, ToCanonical(got, shape, layout.k_rotation, layout.v_rotation));
  t.same_type_as_source = readback->type == source.type && readback->k_rotation == source.k_rotation &&
                          readback->v_rotation == source.v_rotation;
  if (t.same_type_as_source) {
    for (uint32_t l = 0; l < shape.n_layers; ++l) {
      const uint64_t at = source.KOffset(shape, l), n = source.KBytes(shape) + source.VBytes(shape);
      t.layers_equal += std::string_view(source.data).substr(at, n) ==
                        std::string_view(readback->data).substr(at, n);
    }
    t.bit_exact_vs_source = t.layers_equal == t.layers;
  }
  t.max_abs_diff_vs_source = MaxAbsDiff(PlainValues(source, shape), PlainValues(*readback, shape));
  return t;
}

ProbeCheck Probe(const Model& model, const CanonicalKv& source, const CanonicalKv& readback,
                 const ValidateOptions& o) {
  const BlobShape shape = model.shape().blob();
  const AttentionShape& a = model.shape();
  const std::vector<float> src = PlainValues(source, shape), got = PlainValues(readback, shape);
  const uint64_t layer_elems = uint64_t{source.n_tokens} * (shape.k_row + shape.v_row);
  ProbeCheck p;
  uint64_t state = o.probe_seed * 0x9e3779b97f4a7c15ull + 1;
  auto next = [&](uint64_t bound) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return state % bound;
  };
  for (uint32_t i = 0; i < o.probes; ++i) {
    const uint64_t l = next(a.n_layers), t = next(source.n_tokens), h = next(a.n_kv_heads);
    const bool is_v = next(2) == 1;
    const uint32_t dim = is_v ? a.v_head_dim : a.k_head_dim;
    uint64_t at = l * layer_elems + (is_v ? uint64_t{source.n_tokens} * shape.k_row : 0) +
                  t * (is_v ? shape.v_row : shape.k_row) + h * dim;
    double diff = 0;
    for (uint32_t d = 0; d < dim; ++d) diff = std::max(diff, std::fabs(double(src[at + d]) - got[at + d]));
    p.count++;
    p.exact += diff == 0;
    p.max_abs_diff = std::max(p.max_abs_diff, diff);
  }
  return p;
}

std::string Verdict(const ValidationReport& r) {
  if (!r.tensors.readback_equals_loaded) return "failed";
  if (!r.control.changed) return "inconclusive";
  if (!r.vs_reprefill.tokens_equal || (r.vs_source.available && !r.vs_source.tokens_equal)) {
    return "diverged";
  }
  const bool exact = r.tensors.bit_exact_vs_source && r.vs_reprefill.logits_bit_exact == r.vs_reprefill.steps &&
                     (!r.vs_source.available || r.vs_source.logits_bit_exact == r.vs_source.steps);
  return exact ? "exact" : "equivalent";
}

}  // namespace

Result<ValidationReport> Validate(const Model& model, const StateBundle& b, const ValidateOptions& o) {
  ValidationReport r;
  r.source_settings = b.reference ? b.reference->settings : "";
  r.target_settings = o.target.Describe();
  r.n_tokens = b.kv.n_tokens;
  r.horizon = o.horizon;

  // 1-4: restore into a fresh context, read back, probe, continue.
  std::string loaded;
  RestoreTimings timings;
  VEXFS_ASSIGN_OR_RETURN(auto restored, RestoreBundle(model, b, o.target, o.horizon, &timings, &loaded));
  r.restore_seconds = timings.rebuild_seconds + timings.load_seconds;
  CanonicalKv readback;
  VEXFS_ASSIGN_OR_RETURN(r.tensors, CheckTensors(model, *restored, loaded, b.kv, &readback));
  r.probes = Probe(model, b.kv, readback, o);
  VEXFS_ASSIGN_OR_RETURN(Continuation from_restore, restored->Greedy(o.horizon));
  restored.reset();
  r.restored_tokens = from_restore.tokens;

  // The target's own baseline: a second fresh context reads the prompt itself.
  VEXFS_ASSIGN_OR_RETURN(auto baseline, ModelContext::Create(model, o.target, r.n_tokens + o.horizon + 1));
  Stopwatch clock;
  VEXFS_RETURN_IF_ERROR(baseline->Prefill(b.info.token_ids, o.progress));
  r.reprefill_seconds = clock.Seconds();
  r.next_logits_equal_reprefill = BitEqual(baseline->pending_logits(), b.next_logits);
  VEXFS_ASSIGN_OR_RETURN(Continuation from_prefill, baseline->Greedy(o.horizon));
  baseline.reset();
  r.vs_reprefill = CompareFull(from_restore, from_prefill);
  if (b.reference) r.vs_source = CompareWithReference(from_restore, *b.reference);

  // 5: the corrupted control must change what the model computes.
  StateBundle bad = b;
  bad.kv = Corrupted(b.kv, model.shape().blob());
  VEXFS_ASSIGN_OR_RETURN(auto control, RestoreBundle(model, bad, o.target, o.horizon, nullptr));
  VEXFS_ASSIGN_OR_RETURN(Continuation from_control, control->Greedy(o.horizon));
  const ContinuationCheck c = CompareFull(from_control, from_restore);
  r.control.max_abs_logit_diff = c.max_abs_logit_diff;
  r.control.first_divergence = c.first_divergence;
  r.control.changed = c.max_abs_logit_diff > 0;
  r.verdict = Verdict(r);
  return r;
}

}  // namespace vexfs::kv
