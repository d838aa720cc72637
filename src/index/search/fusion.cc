// Reciprocal rank fusion and normalised score mixing.
#include "index/search/fusion.h"

#include <algorithm>
#include <limits>
#include <string>
#include <unordered_map>

namespace vexfs::index {
namespace {

std::string KeyOf(const RankedPassage& r, bool passages) {
  // A document's key cannot be mistaken for a path: no path begins with 0x00.
  std::string key = r.file->document.empty() ? r.file->path : '\0' + r.file->document;
  if (passages) {
    key.push_back('\0');
    key += std::to_string(r.passage->offset) + ":" + std::to_string(r.passage->length);
  }
  return key;
}

// Min-max normalisation of one side's scores over its list (1 for the best, 0
// for the worst listed; a list of equal scores counts as all 1).
double Normalised(const SideRanking& side, float score) {
  float hi = side.ranked.front().score, lo = side.ranked.back().score;
  return hi > lo ? (score - lo) / double(hi - lo) : 1.0;
}

double Contribution(const SideRanking& side, size_t index, FusionMethod method) {
  if (method == FusionMethod::kRrf) return 1.0 / (kRrfRankConstant + double(index + 1));
  return 0.5 * Normalised(side, side.ranked[index].score);
}

uint32_t BestRank(const FusedResult& r) {
  uint32_t best = std::numeric_limits<uint32_t>::max();
  if (r.dense) best = std::min(best, r.dense->rank);
  if (r.lexical) best = std::min(best, r.lexical->rank);
  return best;
}

}  // namespace

std::vector<FusedResult> Fuse(const SideRanking& dense, const SideRanking& lexical,
                              FusionMethod method, bool passages, size_t k) {
  std::vector<FusedResult> fused;
  std::unordered_map<std::string, size_t> slot;
  auto add = [&](const SideRanking& side, bool is_dense) {
    for (size_t i = 0; i < side.ranked.size(); ++i) {
      const RankedPassage& r = side.ranked[i];
      auto [it, inserted] = slot.try_emplace(KeyOf(r, passages), fused.size());
      if (inserted) fused.push_back({&r, std::nullopt, std::nullopt, 0});
      FusedResult& f = fused[it->second];
      HitRank rank{static_cast<uint32_t>(i + 1), r.score};
      // The shown passage is the one of the side that ranked the result higher.
      if (!inserted && rank.rank < BestRank(f)) f.shown = &r;
      (is_dense ? f.dense : f.lexical) = rank;
      f.score += Contribution(side, i, method);
    }
  };
  add(lexical, false);
  add(dense, true);
  auto better = [](const FusedResult& a, const FusedResult& b) {
    if (a.score != b.score) return a.score > b.score;
    uint32_t ra = BestRank(a), rb = BestRank(b);
    if (ra != rb) return ra < rb;
    const CatalogFile& fa = *a.shown->file;
    const CatalogFile& fb = *b.shown->file;
    return fa.path != fb.path ? fa.path < fb.path : fa.document < fb.document;
  };
  size_t n = std::min(k, fused.size());
  std::partial_sort(fused.begin(), fused.begin() + n, fused.end(), better);
  fused.resize(n);
  return fused;
}

}  // namespace vexfs::index
