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

// Gives the caught-up ANN index of the model: loaded on first need when `load`,
// else only if it is in memory already (nullptr otherwise).
using VectorIndexGetter = std::function<Result<VectorIndex*>(bool load)>;

// The files a request's filters keep and the vector ids they make visible. Built
// once per (view, filters) and cached by the caller, since agents repeat filters
// and building it costs a pass over every matching passage.
struct FilterResult {
  std::vector<bool> passes;      // per catalog file
  std::vector<uint8_t> visible;  // bitmap of visible vector ids
  uint64_t visible_count = 0;
  uint64_t matching_files = 0;     // passing files with at least one passage
  uint64_t matching_passages = 0;
};

// "" when the request has no filter; otherwise a key naming every filter field.
std::string FilterKey(const SearchRequest& request);
Result<FilterResult> ApplyFilter(internal::StoreImpl* impl, const ViewCatalog& catalog,
                                 const SearchRequest& request);

// `filter` is null when FilterKey(request) is empty.
Result<SearchResult> SearchCatalog(internal::StoreImpl* impl, const ViewCatalog& catalog,
                                   const FilterResult* filter, const ModelRecord& model,
                                   const std::vector<float>& query,
                                   const SearchRequest& request, const SearchTuning& tuning,
                                   const VectorIndexGetter& get_index);

}  // namespace vexfs::index

#endif  // VEXFS_INDEX_SEARCHER_H_
