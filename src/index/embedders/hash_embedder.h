// The built-in embedder: deterministic lexical feature hashing. It needs no model
// files and captures shared words, word pairs and word fragments, so it finds
// notes that use the same vocabulary; it does not know synonyms or meaning. It is
// lexical, and docs/search.md says so.
#ifndef VEXFS_INDEX_EMBEDDERS_HASH_EMBEDDER_H_
#define VEXFS_INDEX_EMBEDDERS_HASH_EMBEDDER_H_

#include <memory>

#include "index/embedders/embedder.h"

namespace vexfs::index {

inline constexpr uint32_t kDefaultHashDim = 384;

// `dim` must be at least 16.
std::unique_ptr<Embedder> MakeHashEmbedder(uint32_t dim = kDefaultHashDim);

}  // namespace vexfs::index

#endif  // VEXFS_INDEX_EMBEDDERS_HASH_EMBEDDER_H_
