// The canonical KV cache of one sequence in memory (the USXF kv_cache layout:
// per layer K then V, token-major [token][kv head][dim]) and conversions between
// it and llama.cpp's cache rows: other element types, V transposed or not, and
// the Walsh-Hadamard rotation llama.cpp applies to quantised caches.
//
// Why rotation matters: for a quantised cache (q8_0) with head dims divisible by
// 64, llama.cpp stores H·k and H·v, H the orthonormal Sylvester-Hadamard matrix
// of size `rotation`, applied to each run of `rotation` consecutive elements, and
// rotates queries and outputs to match. A q8_0 cache is carried as it is (rotated,
// bit-exact); converting to another type or rotation applies H again (H·H = I).
//
// Thread-safety: plain values and free functions.
#ifndef VEXFS_KV_CACHE_CONVERT_H_
#define VEXFS_KV_CACHE_CONVERT_H_

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "vexfs/kv/blob_format.h"
#include "vexfs/status.h"

// The public API: exported from libvexfs.so, which is built with hidden visibility.
#pragma GCC visibility push(default)

namespace vexfs::kv {

struct CanonicalKv {
  CacheType type = CacheType::kF16;  // one element type for all of K and V
  uint32_t k_rotation = 0;           // Hadamard block size applied to K; 0 = none
  uint32_t v_rotation = 0;
  uint32_t n_tokens = 0;
  std::string data;                  // the canonical layout in `type`

  // Byte range of layer l's K or V inside data.
  uint64_t KOffset(const BlobShape& s, uint32_t l) const;
  uint64_t VOffset(const BlobShape& s, uint32_t l) const;
  uint64_t KBytes(const BlobShape& s) const;
  uint64_t VBytes(const BlobShape& s) const;
};

// How a target context keeps its cache.
struct CacheLayout {
  CacheType k_type = CacheType::kF16;
  CacheType v_type = CacheType::kF16;
  uint32_t k_rotation = 0;
  uint32_t v_rotation = 0;
  bool v_trans = false;
};

// From a parsed blob; `k_rotation`/`v_rotation` are what the source context
// applied. When every layer's K and V share one type the bytes are copied as they
// are; otherwise everything is widened to f32 (exactly) and un-rotated.
Result<CanonicalKv> ToCanonical(const SeqState& state, const BlobShape& shape,
                                uint32_t k_rotation, uint32_t v_rotation);

// Per-layer K and V in the target's layout. When type and rotation agree (and V
// need not be transposed) a view points straight into the canonical cache, which
// must outlive it; converted layers live in `storage` (a deque: its elements
// never move).
struct LayerBuffers {
  std::vector<std::string_view> k, v;
  std::deque<std::string> storage;
};
Result<LayerBuffers> FromCanonical(const CanonicalKv& kv, const BlobShape& shape,
                                   const CacheLayout& target);

// Element conversions (q8_0 counts must be multiples of 32).
std::vector<float> DecodeToF32(CacheType type, std::string_view bytes);
std::string EncodeFromF32(CacheType type, const std::vector<float>& values);
// In place: x <- H x for every run of `block` elements (block a power of two).
void ApplyHadamard(std::vector<float>& values, uint32_t block);

// The rotation llama.cpp applies to a cache of `type` with this head dim
// (0 when it applies none); `for_k` selects K's rule (the largest power of two
// >= 64 dividing the head dim) or V's (64). LLAMA_ATTN_ROT_DISABLE turns it off.
uint32_t RuntimeRotation(CacheType type, uint32_t head_dim, bool for_k);

}  // namespace vexfs::kv

#pragma GCC visibility pop

#endif  // VEXFS_KV_CACHE_CONVERT_H_
