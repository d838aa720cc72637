// Capture: prefill a prompt in a fresh context, read the sequence's KV state
// through llama.cpp's public API, turn it into the canonical layout with the
// model's identity, the real token ids and positions, and write a USXF state file
// (state_file.h). The source's own greedy continuation is recorded after the
// capture, for `kv verify`.
//
// Thread-safety: one call per Model at a time.
#ifndef VEXFS_KV_CAPTURE_H_
#define VEXFS_KV_CAPTURE_H_

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

struct CaptureOptions {
  std::vector<int32_t> tokens;        // the prompt, tokenized
  RuntimeSettings settings;           // the source context
  uint32_t reference_steps = 64;      // greedy steps recorded for verification (0: none)
  uint32_t reference_top_k = 16;
  uint32_t block_size = 16;
  std::string output_path;
  const usxf::SigningKey* signer = nullptr;
  std::function<void(uint64_t done, uint64_t total)> progress;  // prefill, tokens
};

struct CaptureReport {
  uint32_t n_tokens = 0;
  CacheType type = CacheType::kF16;
  uint64_t kv_bytes = 0;        // the canonical section
  uint64_t file_bytes = 0;
  double prefill_seconds = 0;
  double capture_seconds = 0;   // state read + parse + canonical
  double write_seconds = 0;
  std::vector<int32_t> reference_tokens;
};

Result<CaptureReport> Capture(const Model& model, const CaptureOptions& options);

// The state of `context`'s sequence as a bundle (no reference yet): what Capture
// writes and what `kv verify` reads back from a restored target.
Result<StateBundle> CaptureBundle(const Model& model, ModelContext& context,
                                  const std::vector<int32_t>& tokens, uint32_t block_size);

}  // namespace vexfs::kv

#pragma GCC visibility pop

#endif  // VEXFS_KV_CAPTURE_H_
