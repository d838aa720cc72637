// One search over one view's catalog: filter the files, mark the visible vector
// ids, then either score every visible vector (exact) or ask the HNSW graph with
// the visibility bitmap as a selector, and group passages into per-file hits.
#ifndef VEXFS_INDEX_SEARCHER_H_
#define VEXFS_INDEX_SEARCHER_H_

#include <functional>

#include "index/vector_index.h"
#include "index/view_catalog.h"
#include "vexfs/index.h"

namespace vexfs::index {

struct SearchTuning {
  uint64_t exact_max_visible = 20000;
  int ef_search = 64;
};

// Gives the caught-up ANN index of the model (loaded on first need).
using VectorIndexGetter = std::function<Result<VectorIndex*>()>;

Result<SearchResult> SearchCatalog(internal::StoreImpl* impl, const ViewCatalog& catalog,
                                   const ModelRecord& model, const std::vector<float>& query,
                                   const SearchRequest& request, const SearchTuning& tuning,
                                   const VectorIndexGetter& get_index);

}  // namespace vexfs::index

#endif  // VEXFS_INDEX_SEARCHER_H_
