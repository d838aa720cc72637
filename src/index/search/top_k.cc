// Exact scoring and top-k selection.
#include "index/search/top_k.h"

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

namespace {

// Debian's FAISS is built for generic x86-64, so its distance kernels are scalar
// loops. These let the compiler reassociate the sum (omp simd) and pick AVX2 at
// run time where the CPU has it (target_clones), with SSE2 as the fallback.
__attribute__((target_clones("avx2", "default"))) float InnerProduct(const float* a,
                                                                      const float* b,
                                                                      uint32_t dim) {
  float acc = 0;
#pragma omp simd reduction(+ : acc)
  for (uint32_t i = 0; i < dim; ++i) acc += a[i] * b[i];
  return acc;
}

__attribute__((target_clones("avx2", "default"))) float SquaredL2(const float* a,
                                                                   const float* b,
                                                                   uint32_t dim) {
  float acc = 0;
#pragma omp simd reduction(+ : acc)
  for (uint32_t i = 0; i < dim; ++i) acc += (a[i] - b[i]) * (a[i] - b[i]);
  return acc;
}

}  // namespace

float Similarity(Metric metric, const float* a, const float* b, uint32_t dim) {
  return metric == Metric::kInnerProduct ? InnerProduct(a, b, dim) : -SquaredL2(a, b, dim);
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
