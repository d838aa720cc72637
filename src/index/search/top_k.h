// Exact nearest-neighbour scoring: the answer ANN search is measured against, and
// the path used when few vectors are visible.
#ifndef VEXFS_INDEX_SEARCH_TOP_K_H_
#define VEXFS_INDEX_SEARCH_TOP_K_H_

#include <cstdint>
#include <vector>

#include "index/embedders/embedder.h"

namespace vexfs::index {

struct ScoredId {
  uint64_t id = 0;
  float score = 0;  // higher is better: inner product, or -squared L2 distance
};

// Similarity of `a` and `b` (length `dim`) under `metric`, higher is better.
float Similarity(Metric metric, const float* a, const float* b, uint32_t dim);

// Keeps the k best-scoring ids seen; ties go to the smaller id, so results are
// deterministic whatever the order of Offer() calls.
class TopK {
 public:
  explicit TopK(size_t k) : k_(k) {}
  void Offer(uint64_t id, float score);
  // Best first.
  std::vector<ScoredId> Take();

 private:
  size_t k_;
  std::vector<ScoredId> heap_;  // min-heap on (score, -id): the worst kept is on top
};

}  // namespace vexfs::index

#endif  // VEXFS_INDEX_SEARCH_TOP_K_H_
