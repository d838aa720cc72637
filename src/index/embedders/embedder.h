// The embedder interface: anything that turns texts into fixed-size vectors of one
// declared model. Implementations: the built-in lexical hash embedder, an external
// command speaking JSON lines, and (later) llama.cpp GGUF models.
#ifndef VEXFS_INDEX_EMBEDDERS_EMBEDDER_H_
#define VEXFS_INDEX_EMBEDDERS_EMBEDDER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "vexfs/status.h"

namespace vexfs::index {

enum class Metric : uint8_t { kInnerProduct = 1, kL2 = 2 };
const char* MetricName(Metric m);  // "ip", "l2"

// What a store records about a model: vectors of different models never mix.
struct ModelInfo {
  std::string name;         // e.g. "hash-384", or a user's name for an exec model
  uint32_t dim = 0;
  Metric metric = Metric::kInnerProduct;
  std::string fingerprint;  // identifies weights/config/algorithm; differs => new model
  // Embeds sentences (a GGUF model, an exec model declaring "kind":"sentence"),
  // not bags of words: hybrid search is then the default (docs/search.md).
  bool sentence = false;
};

// Thread-safety: an Embedder is used by one thread at a time.
class Embedder {
 public:
  virtual ~Embedder() = default;
  virtual const ModelInfo& info() const = 0;
  // Appends texts.size() * info().dim floats to `out`. On failure `out` is left
  // as it was: a batch is embedded entirely or not at all.
  virtual Status Embed(const std::vector<std::string_view>& texts, std::vector<float>* out) = 0;
};

// Checks a vector a model produced or a caller supplied: right length, finite.
Status ValidateVector(const ModelInfo& model, const float* v, size_t n);

}  // namespace vexfs::index

#endif  // VEXFS_INDEX_EMBEDDERS_EMBEDDER_H_
