// The USXF file a KV capture produces (docs/kv.md, "State file"):
//   "kv"             kv_cache section: the canonical cache, its model identity,
//                    tokens, positions, rotation and block hashes
//   "kv.next_logits" f32 tensor [n_vocab]: the logits the source computed for the
//                    last prompt token, so the target picks the first new token
//                    without re-running any of the prompt
//   "kv.reference"   blob (JSON): the source's own greedy continuation, recorded
//                    for the causal check (tokens, SHA-256 of every step's logits,
//                    the top logits of every step)
//
// Thread-safety: plain values and free functions.
#ifndef VEXFS_KV_STATE_FILE_H_
#define VEXFS_KV_STATE_FILE_H_

#include <optional>
#include <string>
#include <vector>

#include "kv/cache_convert.h"
#include "vexfs/status.h"
#include "vexfs/usxf_keys.h"
#include "vexfs/usxf_kv.h"

namespace vexfs::kv {

struct ReferenceStep {
  int32_t token = 0;
  usxf::Digest logits_sha256{};                 // over the step's f32 logits, little-endian
  std::vector<std::pair<int32_t, float>> top;   // the largest logits, best first
};

struct Reference {
  std::string settings;  // the source context's RuntimeSettings::Describe()
  std::vector<ReferenceStep> steps;
};

struct StateBundle {
  usxf::KvCacheInfo info;
  CanonicalKv kv;
  std::vector<float> next_logits;
  std::optional<Reference> reference;
};

// Writes atomically, sealed, signed by `signer` when given.
Status WriteStateFile(const std::string& path, const StateBundle& bundle,
                      const usxf::SigningKey* signer);

// Verifies fully (digests, Merkle root, KV metadata; with a keyring a trusted
// signature is required) and then decodes. kCorruption / kPermissionDenied /
// kNotSupported name what failed; nothing is returned from a file that did not
// verify.
Result<StateBundle> ReadStateFile(const std::string& path, const usxf::Keyring* keyring);

// The reference record of a continuation (top `top_k` logits per step).
ReferenceStep MakeReferenceStep(int32_t token, const std::vector<float>& logits, size_t top_k);
usxf::Digest LogitsDigest(const std::vector<float>& logits);

}  // namespace vexfs::kv

#endif  // VEXFS_KV_STATE_FILE_H_
