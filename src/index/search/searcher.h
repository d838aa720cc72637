// One side of a search over one view's catalog: filter the files, mark the
// visible ids, then rank. Dense: score every visible vector (exact) or ask the
// HNSW graph with the visibility bitmap as a selector, scoring exactly the ids
// the graph does not hold yet. Lexical: BM25 with the bitmap as a match
// decider. Both group passages into per-file results.
#ifndef VEXFS_INDEX_SEARCH_SEARCHER_H_
#define VEXFS_INDEX_SEARCH_SEARCHER_H_

#include "index/dense/vector_index.h"
#include "index/lexical/lexical_index.h"
#include "index/search/view_catalog.h"
#include "vexfs/index.h"

namespace vexfs::index {

struct SearchTuning {
  uint64_t exact_max_visible = 20000;
  int ef_search = 64;
};

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
// The search's read transaction, `txn`, supplies working files' metadata.
Result<FilterResult> ApplyFilter(const StoreTxn& txn, const ViewCatalog& catalog,
                                 const SearchRequest& request);
// Vector ids a dense ranking would consider; above SearchTuning::exact_max_visible
// it asks the graph, if there is one.
uint64_t VisibleIds(const ViewCatalog& catalog, const FilterResult* filter);

// One passage of one side's ranking; points into the catalog that ranked it.
struct RankedPassage {
  const ViewCatalog* catalog = nullptr;
  const CatalogFile* file = nullptr;
  const StoredPassage* passage = nullptr;
  float score = 0;
};

struct SideRanking {
  std::vector<RankedPassage> ranked;  // best first: files' best passages, or passages
  std::string model;                  // dense: the model's name
  std::string method;                 // dense: "exact" or "hnsw"
  uint64_t visible = 0;               // ids that passed view and filters
  uint64_t unindexed_files = 0;
  uint64_t unindexed_documents = 0;
  bool empty_query = false;           // lexical: the query has no words to match
};

// The `depth` best files (or passages with request.passages) by vector
// similarity. `filter` is null when FilterKey(request) is empty. `graph`, the
// model's published HNSW graph or null, may cover only a prefix of the log; the
// caller holds it for the call. Vectors beyond the graph are read from the
// log in `txn`, the search's read transaction.
Result<SideRanking> RankDense(const StoreTxn& txn, const IndexTables& ix,
                              const ViewCatalog& catalog,
                              const FilterResult* filter, const ModelRecord& model,
                              const std::vector<float>& query, const SearchRequest& request,
                              size_t depth, const SearchTuning& tuning, VectorIndex* graph);
// The same by BM25 over `catalog` of the lexical model; `index` is null when the
// model holds nothing yet.
Result<SideRanking> RankLexical(const ViewCatalog& catalog, const FilterResult* filter,
                                LexicalIndex* index, const SearchRequest& request, size_t depth);

// The hit for a ranked passage, with its snippet read when request.snippets,
// in `txn` (the search's read transaction, bound to the working tree
// searched): a working file by the inode its catalog holds, a snapshot's by
// its version, a document through request.read_document.
Result<SearchHit> MakeHit(StoreTxn* txn, const RankedPassage& ranked,
                          const SearchRequest& request);

}  // namespace vexfs::index

#endif  // VEXFS_INDEX_SEARCH_SEARCHER_H_
