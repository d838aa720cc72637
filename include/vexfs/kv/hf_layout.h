// A KV cache in the layout Hugging Face runtimes keep (transformers, and
// transformers.js over ONNX Runtime): for each layer K, then V, each float32
// [kv_heads][tokens][head_dim], K after rotary embedding. This is how a verified
// state leaves llama.cpp for ONNX Runtime (docs/kv.md, "Across runtimes").
//
// The canonical cache of a state file is token-major ([token][kv head][dim]), of
// one element type, maybe Hadamard-rotated (cache_convert.h); the conversion
// widens to float32 exactly, undoes the rotation and moves heads outward.
//
// Thread-safety: plain values and free functions.
#ifndef VEXFS_KV_HF_LAYOUT_H_
#define VEXFS_KV_HF_LAYOUT_H_

#include <cstdint>
#include <vector>

#include <string>
#include <string_view>

#include "vexfs/kv/cache_convert.h"
#include "vexfs/kv/state_file.h"
#include "vexfs/status.h"
#include "vexfs/usxf_kv.h"

// The public API: exported from libvexfs.so, which is built with hidden visibility.
#pragma GCC visibility push(default)

namespace vexfs::kv {

struct HfCache {
  uint32_t n_layers = 0;
  uint32_t n_kv_heads = 0;
  uint32_t head_dim = 0;
  uint32_t n_tokens = 0;
  std::vector<float> data;  // K_0, V_0, K_1, V_1, ..., each [kv_heads][tokens][head_dim]

  uint64_t TensorElements() const { return uint64_t{n_kv_heads} * n_tokens * head_dim; }
  // First element of layer `layer`'s K (or V).
  uint64_t Offset(uint32_t layer, bool v) const { return (2 * uint64_t{layer} + v) * TensorElements(); }
};

// kNotSupported for a cache the layout cannot hold: layers with different head
// counts or sizes, K and V heads of different sizes, K kept before RoPE, or
// positions other than 0..n-1. kCorruption if `kv` is shorter than `info` says.
Result<HfCache> ToHfLayout(const usxf::KvCacheInfo& info, const CanonicalKv& kv);

// What another runtime exported in this layout (the ONNX Runtime adapter's
// `capture`): manifest.json's text ("vexfs-kv-hf-v1": model identity, shape,
// RoPE, tokens, n_vocab, optionally the source's continuation as a kv.reference
// record) and the raw little-endian float32 files it names.
struct HfExport {
  std::string manifest_json;
  std::string cache;        // K_0, V_0, ... each [kv_heads][tokens][head_dim]
  std::string next_logits;  // [n_vocab]
};

// The state an export describes, ready for WriteStateFile: a float32 canonical
// cache at positions 0..n-1 with its block hashes. Every field of the outside
// bytes is checked (presence, type, range, sizes, finite values); a bad one is
// kCorruption naming it, a cache this format cannot carry kNotSupported.
Result<StateBundle> BundleFromHf(const HfExport& in);

// BundleFromHf of the export in `folder`: its manifest.json and the two files it
// names, which must be plain names inside the folder (kCorruption otherwise).
Result<StateBundle> ReadHfExport(const std::string& folder);

}  // namespace vexfs::kv

#pragma GCC visibility pop

#endif  // VEXFS_KV_HF_LAYOUT_H_
