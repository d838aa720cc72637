// Exact scoring and top-k selection.
#include "index/top_k.h"

#include <algorithm>

namespace vexfs::index {
namespace {

// True if `a` ranks below `b`.
bool Worse(const ScoredId& a, const ScoredId& b) {
  return a.score != b.score ? a.score < b.score : a.id > b.id;
}

// Heap comparator keeping the worst element on top.
bool HeapOrder(const ScoredId& a, const ScoredId& b) { return Worse(b, a); }

}  // namespace

float Similarity(Metric metric, const float* a, const float* b, uint32_t dim) {
  float acc = 0;
  if (metric == Metric::kInnerProduct) {
    for (uint32_t i = 0; i < dim; ++i) acc += a[i] * b[i];
    return acc;
  }
  for (uint32_t i = 0; i < dim; ++i) {
    float d = a[i] - b[i];
    acc += d * d;
  }
  return -acc;
}

void TopK::Offer(uint64_t id, float score) {
  if (k_ == 0) return;
  ScoredId candidate{id, score};
  if (heap_.size() < k_) {
    heap_.push_back(candidate);
    std::push_heap(heap_.begin(), heap_.end(), HeapOrder);
  } else if (Worse(heap_.front(), candidate)) {
    std::pop_heap(heap_.begin(), heap_.end(), HeapOrder);
    heap_.back() = candidate;
    std::push_heap(heap_.begin(), heap_.end(), HeapOrder);
  }
}

std::vector<ScoredId> TopK::Take() {
  std::vector<ScoredId> out = std::move(heap_);
  heap_.clear();
  std::sort(out.begin(), out.end(), [](const ScoredId& a, const ScoredId& b) { return Worse(b, a); });
  return out;
}

}  // namespace vexfs::index
