// Restore: accept a captured state only after it verifies (digests, signature
// when a keyring is given, KV metadata) and matches the loaded model (identity
// fingerprints, architecture, attention structure), then rebuild llama.cpp's state
// blob for the target context's own settings (cache types, V layout, rotation,
// streams) and load it with llama_state_seq_set_data. Nothing reaches the
// runtime from a file that fails any check.
//
// Thread-safety: one call per Model at a time.
#ifndef VEXFS_KV_RESTORE_H_
#define VEXFS_KV_RESTORE_H_

#include <memory>
#include <string>

#include "vexfs/kv/model.h"
#include "vexfs/kv/model_context.h"
#include "vexfs/kv/state_file.h"
#include "vexfs/status.h"
#include "vexfs/usxf_keys.h"

// The public API: exported from libvexfs.so, which is built with hidden visibility.
#pragma GCC visibility push(default)

namespace vexfs::kv {

// kInvalidArgument naming every part of the identity or structure that differs
// ("weights fingerprint", "tokenizer fingerprint", "KV heads", ...).
Status CheckIdentity(const usxf::KvCacheInfo& info, const Model& model);

// The blob a context with `settings` accepts for this state.
Result<std::string> BuildTargetBlob(const Model& model, const StateBundle& bundle,
                                    const RuntimeSettings& settings);

struct RestoreTimings {
  double verify_seconds = 0;   // read + verify + decode the file
  double rebuild_seconds = 0;  // identity check + conversion + blob
  double load_seconds = 0;     // llama_state_seq_set_data
};

// A fresh context with room for `extra_tokens` after the restored ones, holding
// the state; generation continues from the carried next-token logits. The blob
// handed to llama.cpp is kept in `loaded_blob` when given (for verification).
Result<std::unique_ptr<ModelContext>> RestoreBundle(const Model& model, const StateBundle& bundle,
                                               const RuntimeSettings& settings,
                                               uint32_t extra_tokens, RestoreTimings* timings,
                                               std::string* loaded_blob = nullptr);

// ReadStateFile + RestoreBundle.
Result<std::unique_ptr<ModelContext>> RestoreFile(const Model& model, const std::string& path,
                                             const usxf::Keyring* keyring,
                                             const RuntimeSettings& settings,
                                             uint32_t extra_tokens, RestoreTimings* timings);

}  // namespace vexfs::kv

#pragma GCC visibility pop

#endif  // VEXFS_KV_RESTORE_H_
