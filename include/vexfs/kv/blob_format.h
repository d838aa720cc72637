// llama.cpp's per-sequence state blob (llama_state_seq_get_data / set_data), read
// and written field by field. The runtime documents no format; this is the layout
// of the release VexFS links (docs/kv.md, "The llama.cpp state blob"), checked
// against the loaded model's dimensions on every parse so that a runtime that
// changes it is refused, not misread:
//
//   u32 magic 0xaf143cd8, i32 seq_id, u32 n_stream,
//   per stream: u32 cell_count; when > 0:
//     cell_count x (i32 pos, u32 n_seq, n_seq x i32 seq_id)
//     u32 v_trans, u32 n_layer
//     per layer K: i32 ggml type, u64 row bytes, cell_count rows
//     per layer V, v_trans = 0: i32 type, u64 row bytes, cell_count rows
//     per layer V, v_trans = 1: i32 type, u32 element bytes, u32 row elements,
//                               row elements x cell_count elements (transposed)
//
// Thread-safety: plain values and free functions.
#ifndef VEXFS_KV_BLOB_FORMAT_H_
#define VEXFS_KV_BLOB_FORMAT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "vexfs/status.h"

// The public API: exported from libvexfs.so, which is built with hidden visibility.
#pragma GCC visibility push(default)

namespace vexfs::kv {

// The ggml cache types a KV cache may hold (values are ggml's type ids).
enum class CacheType : int32_t { kF32 = 0, kF16 = 1, kQ8_0 = 8, kBF16 = 30 };
const char* CacheTypeName(CacheType t);                    // "f16"
Result<CacheType> ParseCacheType(std::string_view name);  // "f32", "f16", "bf16", "q8_0"
bool IsCacheType(int32_t ggml_type);
// Bytes of `elements` values of type t (elements a multiple of 32 for q8_0).
uint64_t CacheBytes(CacheType t, uint64_t elements);

// One layer's cells, in the blob's own order (V possibly transposed).
struct BlobLayer {
  CacheType k_type = CacheType::kF16;
  CacheType v_type = CacheType::kF16;
  std::string_view k;  // cell_count rows of k_row elements
  std::string_view v;  // rows, or (v_trans) k_row... see v_trans
};

// A parsed single-sequence blob with its cells in one stream.
struct SeqState {
  int32_t seq_id = 0;
  uint32_t n_stream = 1;
  uint32_t stream = 0;            // the stream that holds the cells
  std::vector<int32_t> positions; // one per cell
  bool v_trans = false;
  std::vector<BlobLayer> layers;
};

// What the model says the rows must look like; every field of the blob is
// checked against it. Elements per token per layer.
struct BlobShape {
  uint32_t n_layers = 0;
  uint32_t k_row = 0;
  uint32_t v_row = 0;
};

// Parses `blob` (views into it stay valid while it lives). kCorruption names the
// field that disagrees (magic, a type, a row size, a length); kNotSupported for
// cells in more than one stream, cells shared with other sequences, or a cache
// type outside f32/f16/bf16/q8_0.
Result<SeqState> ParseSeqState(std::string_view blob, const BlobShape& shape);

// Writes a blob for a target context with `n_stream` streams, the cells in
// state.stream (< n_stream), each cell belonging to state.seq_id only. Layer
// views must hold data in the layout state.v_trans says.
Result<std::string> BuildSeqState(const SeqState& state, const BlobShape& shape);

}  // namespace vexfs::kv

#pragma GCC visibility pop

#endif  // VEXFS_KV_BLOB_FORMAT_H_
