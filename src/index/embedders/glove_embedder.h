// The GloVe embedder: pretrained GloVe 6B 100-d word vectors (a mapped .vxg file,
// docs/glove.md) combined into a sentence vector by SIF weighting (Arora et al.,
// 2017). Unlike the hash embedder it knows that "car" and "automobile" are near;
// unknown words (names, identifiers) get deterministic character-n-gram vectors so
// they still match themselves. The default embedder of new stores.
#ifndef VEXFS_INDEX_EMBEDDERS_GLOVE_EMBEDDER_H_
#define VEXFS_INDEX_EMBEDDERS_GLOVE_EMBEDDER_H_

#include <memory>
#include <string>

#include "index/embedders/embedder.h"
#include "index/embedders/glove_file.h"

namespace vexfs::index {

// The version of the sentence algorithm; part of every GloVe model fingerprint, so
// changing tokenisation, weights or unknown-word vectors makes a new model.
inline constexpr std::string_view kGloveAlgorithm = "glove-sif-v1";

// Opens and verifies `path` (see GloveFile::Open for the errors) and returns an
// embedder over it.
Result<std::unique_ptr<Embedder>> MakeGloveEmbedder(const std::string& path);
// An embedder over an already open file, which it shares.
std::unique_ptr<Embedder> MakeGloveEmbedder(std::shared_ptr<const GloveFile> file);

}  // namespace vexfs::index

#endif  // VEXFS_INDEX_EMBEDDERS_GLOVE_EMBEDDER_H_
