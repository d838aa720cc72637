// Merging the dense and the lexical ranking of one search into one list.
//
// Reciprocal rank fusion (Cormack, Clarke and Buettcher, SIGIR 2009): a result's
// score is the sum over the sides that found it of 1 / (60 + rank). It needs no
// calibration between BM25 weights and cosine similarities, which live on
// unrelated scales that change with the query. The alternative, score mixing,
// min-max normalises each side's scores over its list and averages them with
// equal weight. docs/search.md gives the measurements that chose the default.
//
// Results are matched across sides by path (best passage per file) or by path
// and byte range (passages). A file's shown passage is the one of the side that
// ranked it higher.
#ifndef VEXFS_INDEX_SEARCH_FUSION_H_
#define VEXFS_INDEX_SEARCH_FUSION_H_

#include <vector>

#include "index/search/searcher.h"
#include "vexfs/index.h"

namespace vexfs::index {

// RRF's rank constant from the paper, not tuned here.
inline constexpr double kRrfRankConstant = 60;
// Each side is asked for this many results (or k, if larger): contributions of
// ranks beyond it are below 1/160 and rarely move a result into the top k.
inline constexpr size_t kFusionDepth = 100;

struct FusedResult {
  const RankedPassage* shown = nullptr;  // the passage to show
  std::optional<HitRank> dense;
  std::optional<HitRank> lexical;
  double score = 0;
};

// The k best of both rankings, best first; ties go to the better single rank,
// then to the earlier path.
std::vector<FusedResult> Fuse(const SideRanking& dense, const SideRanking& lexical,
                              FusionMethod method, bool passages, size_t k);

}  // namespace vexfs::index

#endif  // VEXFS_INDEX_SEARCH_FUSION_H_
