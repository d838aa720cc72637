// Owning handle for a gguf_context (ggml's GGUF reader/writer), freed with gguf_free.
#ifndef VEXFS_KV_GGUF_PTR_H_
#define VEXFS_KV_GGUF_PTR_H_

#include <memory>

#include "gguf.h"

namespace vexfs::kv {

struct GgufFree {
  void operator()(gguf_context* g) const { gguf_free(g); }
};
using GgufPtr = std::unique_ptr<gguf_context, GgufFree>;

}  // namespace vexfs::kv

#endif  // VEXFS_KV_GGUF_PTR_H_
