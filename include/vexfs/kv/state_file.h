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
// Reading is split in two so the decoding can be tested and fuzzed on bytes alone:
// DecodeStateFile verifies and decodes a file already in memory, and
// DecodeReference reads the kv.reference JSON. Neither throws: every field of
// the outside bytes is checked for presence, type and range, and a bad one
// becomes kCorruption naming it. Nothing here needs a llama.cpp runtime.
//
// Thread-safety: plain values and free functions.
#ifndef VEXFS_KV_STATE_FILE_H_
#define VEXFS_KV_STATE_FILE_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vexfs/kv/cache_convert.h"
#include "vexfs/status.h"
#include "vexfs/usxf_keys.h"
#include "vexfs/usxf_kv.h"

// The public API: exported from libvexfs.so, which is built with hidden visibility.
#pragma GCC visibility push(default)

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
// kNotSupported name what failed (kNotFound: no such file, or a USXF file without
// the kv sections); messages start with `path`. Nothing is returned from a file
// that did not verify.
Result<StateBundle> ReadStateFile(const std::string& path, const usxf::Keyring* keyring);

// ReadStateFile on the file's bytes, already read (its messages name no path).
// The returned cache takes over `bytes`' buffer rather than copying it.
Result<StateBundle> DecodeStateFile(std::string bytes, const usxf::Keyring* keyring);

// The kv.reference section's JSON text (format "vexfs-kv-reference-v1"). Decoding
// requires an object with format "vexfs-kv-reference-v1", an optional string
// settings, and steps: an array of objects, each with an int32 token, a 64-digit
// hex logits_sha256 and top, an array of [int32 id, finite float logit] pairs.
// Anything else is kCorruption naming the step and field; other fields are ignored.
std::string EncodeReference(const Reference& reference);
Result<Reference> DecodeReference(std::string_view json);

// The USXF element type the "kv" section stores a canonical cache of type `t` as.
usxf::DType StoredDType(CacheType t);

// The reference record of a continuation (top `top_k` logits per step).
ReferenceStep MakeReferenceStep(int32_t token, const std::vector<float>& logits, size_t top_k);
usxf::Digest LogitsDigest(const std::vector<float>& logits);

}  // namespace vexfs::kv

#pragma GCC visibility pop

#endif  // VEXFS_KV_STATE_FILE_H_
