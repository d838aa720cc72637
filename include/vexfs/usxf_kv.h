// What a USXF KV-cache section records, so that a target can accept transformer
// state safely: which model produced it (fingerprints of weights, hyperparameters
// and tokenizer), the attention structure, the real token ids and positions, the
// layout, and chained block hashes over the tokens. docs/usxf.md, "KV-cache
// sections", lists every field with its tag and whether it is required.
//
// Canonical layout of the section's elements: for each layer l in order, K_l then
// V_l; K_l is [n_tokens][n_kv_heads_l][k_head_dim_l] (token-major), V_l is
// [n_tokens][n_kv_heads_l][v_head_dim_l]. K is stored as the runtime keeps it
// (k_after_rope says whether RoPE was already applied).
//
// Thread-safety: plain values.
#ifndef VEXFS_USXF_KV_H_
#define VEXFS_USXF_KV_H_

#include <cstdint>
#include <string>
#include <vector>

#include "vexfs/usxf.h"

// The public API: exported from libvexfs.so, which is built with hidden visibility.
#pragma GCC visibility push(default)

namespace vexfs::usxf {

enum class AttentionKind : uint32_t { kMHA = 1, kGQA = 2, kMQA = 3 };
enum class RopeType : uint32_t { kNone = 0, kNeox = 1, kInterleaved = 2 };
enum class RopeScaling : uint32_t { kNone = 0, kLinear = 1, kYarn = 2, kLongRope = 3 };
enum class KvLayout : uint32_t { kCanonical = 1 };

struct KvCacheInfo {
  std::string arch;                    // "qwen2"
  Digest weights_fingerprint{};        // SHA-256, as the runtime adapter defines it
  Digest hparams_fingerprint{};
  Digest tokenizer_fingerprint{};
  uint32_t n_layers = 0;
  std::vector<uint32_t> n_heads;       // per layer (query heads)
  std::vector<uint32_t> n_kv_heads;    // per layer
  std::vector<uint32_t> k_head_dim;    // per layer
  std::vector<uint32_t> v_head_dim;    // per layer
  AttentionKind attention = AttentionKind::kMHA;
  RopeType rope = RopeType::kNeox;
  double rope_freq_base = 10000.0;
  double rope_freq_scale = 1.0;
  RopeScaling rope_scaling = RopeScaling::kNone;
  bool k_after_rope = true;
  std::vector<int32_t> token_ids;
  bool positions_contiguous = true;
  int64_t position_start = 0;          // when contiguous: positions start..start+n-1
  std::vector<int32_t> positions;      // when explicit: one per token
  KvLayout layout = KvLayout::kCanonical;
  uint32_t block_size = 16;            // tokens per chained block hash
  std::vector<Digest> block_hashes;    // ceil(n_tokens / block_size)
  std::string runtime;                 // optional: "llama.cpp b6000"
  // Walsh-Hadamard rotation the stored K / V carry: each run of this many
  // consecutive elements of a head is H·x (H orthonormal Sylvester). 0 = none.
  uint32_t k_rotation = 0;
  uint32_t v_rotation = 0;

  uint64_t n_tokens() const { return token_ids.size(); }
  // Elements of the canonical layout (sum over layers of tokens*kv_heads*(dk+dv)).
  uint64_t ElementCount() const;
  // First element of K_l or V_l within the section.
  uint64_t KOffset(uint32_t layer) const;
  uint64_t VOffset(uint32_t layer) const;

  // The identity block hashes chain on: SHA-256 over the three fingerprints.
  Digest ModelId() const;
  // Fills block_hashes from token_ids (see ChainedBlockHashes).
  void ComputeBlockHashes();

  // Checks every rule (per-layer arrays sized n_layers, attention kind agrees with
  // heads, block hashes agree with tokens, ...). kInvalidArgument names the field.
  Status Validate() const;
  Metadata ToMetadata() const;
  // Decodes and validates. kNotFound for a missing required field, kCorruption for
  // a field of the wrong type, kInvalidArgument for a broken rule (each naming the
  // field); kNotSupported for an unknown critical field or code.
  static Result<KvCacheInfo> FromMetadata(const Metadata& m);
  // From a section's header entry: metadata plus agreement with its shape
  // (rank 1, [ElementCount()]).
  static Result<KvCacheInfo> FromSection(const SectionInfo& s);
};

// h_0 = 32 zero bytes; for block b (tokens t[b*B .. min((b+1)*B, n))):
//   h_{b+1} = SHA-256("USXF-kv-block-v1" || h_b || model_id || u32le(count) ||
//                     count x i32le(token id))
// and block_hashes[b] = h_{b+1}. docs/usxf.md has a worked example.
std::vector<Digest> ChainedBlockHashes(const Digest& model_id, uint32_t block_size,
                                       const std::vector<int32_t>& token_ids);

// A SectionInfo for a KV cache described by `kv` (kind, dtype, encoding, shape,
// metadata). The caller sets compression if wanted.
SectionInfo KvSection(const std::string& name, const KvCacheInfo& kv, DType dtype,
                      Encoding encoding = Encoding::kNone, uint32_t group_size = 0);

}  // namespace vexfs::usxf

#pragma GCC visibility pop

#endif  // VEXFS_USXF_KV_H_
