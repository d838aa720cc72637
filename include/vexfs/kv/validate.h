// The causal validation protocol for a captured KV state (docs/kv.md,
// "Verification"). Bookkeeping (hashes match, sizes agree) says the bytes arrived;
// it does not say the target computes with them. So:
//   1. a fresh target context that has never seen the prompt receives the state;
//   2. tensor digests: the cache read back from the target equals what was loaded
//      (bit for bit), and is compared with the source's (exact when the cache type
//      and rotation agree, max |difference| otherwise);
//   3. slot probes: sampled (layer, token, head, K|V) vectors compared as values;
//   4. greedy continuation for `horizon` tokens from the restored state, against
//      the target's own re-prefill of the same tokens and against the source's
//      continuation recorded at capture: tokens and logits;
//   5. a control: the same restore with deliberately corrupted KV (the V rows of
//      every layer reversed, so keys meet other tokens' values) must change the
//      logits, or the check is reported inconclusive.
//
// Thread-safety: one call per Model at a time.
#ifndef VEXFS_KV_VALIDATE_H_
#define VEXFS_KV_VALIDATE_H_

#include <functional>
#include <string>
#include <vector>

#include "vexfs/kv/model.h"
#include "vexfs/kv/model_context.h"
#include "vexfs/kv/state_file.h"
#include "vexfs/status.h"

// The public API: exported from libvexfs.so, which is built with hidden visibility.
#pragma GCC visibility push(default)

namespace vexfs::kv {

struct ValidateOptions {
  RuntimeSettings target;
  uint32_t horizon = 64;
  uint32_t probes = 64;
  uint64_t probe_seed = 1;
  std::function<void(uint64_t done, uint64_t total)> progress;  // the re-prefill, tokens
};

struct TensorCheck {
  bool readback_equals_loaded = false;  // bit-exact, whatever the types
  bool same_type_as_source = false;     // cache type and rotation agree
  bool bit_exact_vs_source = false;
  double max_abs_diff_vs_source = 0;    // over every element, as values
  uint32_t layers = 0;
  uint32_t layers_equal = 0;            // layers whose K and V bytes equal the source's
};

struct ProbeCheck {
  uint32_t count = 0;
  uint32_t exact = 0;
  double max_abs_diff = 0;
};

struct ContinuationCheck {
  bool available = false;
  uint32_t steps = 0;              // steps compared (the horizon, or a shorter record)
  bool tokens_equal = false;
  int32_t first_divergence = -1;   // step of the first differing token
  uint32_t top1_agreement = 0;     // steps whose chosen token agrees
  uint32_t logits_bit_exact = 0;   // steps whose logits agree bit for bit
  double max_abs_logit_diff = 0;   // over full vocabularies, or the source's top logits
  // The same over the steps whose inputs still agree (up to and including the
  // first divergence): after that the two runs read different tokens, so their
  // logits measure the divergence, not the restore.
  double max_abs_logit_diff_aligned = 0;
};

struct ControlCheck {
  bool changed = false;
  double max_abs_logit_diff = 0;
  int32_t first_divergence = -1;
};

struct ValidationReport {
  std::string source_settings;
  std::string target_settings;
  uint32_t n_tokens = 0;
  uint32_t horizon = 0;
  TensorCheck tensors;
  ProbeCheck probes;
  ContinuationCheck vs_reprefill;
  ContinuationCheck vs_source;
  ControlCheck control;
  bool next_logits_equal_reprefill = false;  // the carried logits, bit for bit
  double restore_seconds = 0;                // rebuild + set_data
  double reprefill_seconds = 0;
  std::vector<int32_t> restored_tokens;
  // "exact": every comparison bit-exact; "equivalent": same tokens, logits within
  // max_abs_logit_diff; "diverged": the continuation's tokens differ; "failed":
  // the read-back cache differs from what was loaded; "inconclusive": the
  // corrupted control did not change the logits.
  std::string verdict;
  bool passed() const { return verdict == "exact" || verdict == "equivalent"; }
};

Result<ValidationReport> Validate(const Model& model, const StateBundle& bundle,
                                  const ValidateOptions& options);

}  // namespace vexfs::kv

#pragma GCC visibility pop

#endif  // VEXFS_KV_VALIDATE_H_
