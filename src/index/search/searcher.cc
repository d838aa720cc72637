// Filtered exact and HNSW search over a view catalog.
#include "index/search/searcher.h"

#include <algorithm>

#include "index/dense/vector_log.h"
#include "index/indexing/text_detect.h"
#include "index/lexical/analysis.h"

namespace vexfs::index {
namespace {

constexpr size_t kSnippetBytes = 160;
constexpr int kMaxEf = 4096;

// A candidate: file index and passage index in the catalog.
struct Candidate {
  uint32_t file = 0;
  uint32_t passage = 0;
  float score = 0;
};

bool PathIsUnder(std::string_view path, std::string_view under) {
  while (!under.empty() && under.front() == '/') under.remove_prefix(1);
  while (!under.empty() && under.back() == '/') under.remove_suffix(1);
  if (under.empty()) return true;
  return path.starts_with(under) && (path.size() == under.size() || path[under.size()] == '/');
}

// Evaluates the request's filters over a catalog (see FilterResult).
class FilterBuilder {
 public:
  FilterBuilder(const StoreTxn& txn, const ViewCatalog& catalog, const SearchRequest& request)
      : txn_(txn), catalog_(catalog), request_(request) {}

  Result<FilterResult> Build() {
    FilterResult out;
    out.passes.assign(catalog_.files.size(), false);
    out.visible.assign(catalog_.all_visible.size(), 0);
    for (size_t i = 0; i < catalog_.files.size(); ++i) {
      const CatalogFile& f = catalog_.files[i];
      VEXFS_ASSIGN_OR_RETURN(bool ok, Passes(f));
      if (!ok) continue;
      out.passes[i] = true;
      out.visible_count += MarkVisible(f, &out.visible);
      out.matching_files += 1;
      out.matching_passages += f.passages.size();
    }
    return out;
  }

 private:
  Result<bool> Passes(const CatalogFile& f) {
    if (f.passages.empty()) return false;
    if (!f.document.empty()) return true;  // the caller filtered its documents
    if (!PathIsUnder(f.path, request_.under)) return false;
    if (request_.modified_after && f.mtime < *request_.modified_after) return false;
    if (request_.modified_before && f.mtime >= *request_.modified_before) return false;
    if (request_.where.empty()) return true;
    VEXFS_ASSIGN_OR_RETURN(XattrMap xattrs, XattrsOf(f));
    for (const auto& [key, value] : request_.where) {
      auto it = xattrs.find(MetaXattrName(key));
      if (it == xattrs.end() || it->second != value) return false;
    }
    return true;
  }

  Result<XattrMap> XattrsOf(const CatalogFile& f) {
    // A snapshot's file version carries its xattrs; a working file's are read now.
    if (catalog_.is_snapshot) return txn_.VersionXattrs(f.manifest);
    return txn_.InodeXattrs(catalog_.branch_id, f.ino);
  }

  const StoreTxn& txn_;
  const ViewCatalog& catalog_;
  const SearchRequest& request_;
};

bool Passes(const FilterResult* filter, uint32_t file) {
  return filter == nullptr || filter->passes[file];
}

// Turns ids (best first) into ranked passages of files that pass the filters:
// every use of an id in the view, and with !passages only each file's first.
std::vector<RankedPassage> Group(const ViewCatalog& catalog, const FilterResult* filter,
                                 bool passages, size_t limit, const std::vector<ScoredId>& ids) {
  std::vector<RankedPassage> out;
  std::vector<bool> taken(passages ? 0 : catalog.files.size(), false);
  for (const ScoredId& id : ids) {
    auto it = std::lower_bound(catalog.uses.begin(), catalog.uses.end(), id.id,
                               [](const VectorUse& u, uint64_t v) { return u.vector < v; });
    for (; it != catalog.uses.end() && it->vector == id.id; ++it) {
      if (!Passes(filter, it->file)) continue;
      if (!passages) {
        if (taken[it->file]) continue;
        taken[it->file] = true;
      }
      const CatalogFile& f = catalog.files[it->file];
      out.push_back({&catalog, &f, &f.passages[it->passage], id.score});
      if (out.size() == limit) return out;
    }
  }
  return out;
}

// What a ranking sees of its catalog once the filter is applied.
struct Visibility {
  const std::vector<uint8_t>* bitmap = nullptr;
  uint64_t count = 0;           // visible ids
  uint64_t matching_items = 0;  // files (or passages) that can be returned
};

Visibility VisibilityOf(const ViewCatalog& catalog, const FilterResult* filter, bool passages) {
  if (filter == nullptr) {  // every file passes: nothing to compute per query
    return {&catalog.all_visible, catalog.visible_vectors,
            passages ? catalog.uses.size() : catalog.searchable_files};
  }
  return {&filter->visible, filter->visible_count,
          passages ? filter->matching_passages : filter->matching_files};
}

// The dense side: an exact scan of the visible vectors, or the HNSW graph with
// the visibility bitmap as selector.
class DenseRanker {
 public:
  DenseRanker(const StoreTxn& txn, const IndexTables& ix, const ViewCatalog& catalog,
              const FilterResult* filter, const ModelRecord& model,
              const std::vector<float>& query, const SearchRequest& request, size_t depth,
              const SearchTuning& tuning)
      : txn_(txn), ix_(ix), catalog_(catalog), filter_(filter), model_(model), query_(query),
        request_(request), depth_(depth), tuning_(tuning),
        visibility_(VisibilityOf(catalog, filter, request.passages)) {}

  Result<SideRanking> Run(VectorIndex* graph) {
    out_.visible = visibility_.count;
    if (graph == nullptr || visibility_.count <= tuning_.exact_max_visible) {
      out_.method = "exact";
      // The graph's copy of the vectors, when there is one, beats reading the log.
      VEXFS_ASSIGN_OR_RETURN(out_.ranked, Exact(graph));
    } else {
      VEXFS_ASSIGN_OR_RETURN(out_.ranked, Approximate(*graph));
    }
    return std::move(out_);
  }

 private:
  // Scores every visible passage; keeps the best files (or passages).
  Result<std::vector<RankedPassage>> Exact(const VectorIndex* ann) {
    std::vector<Candidate> items;
    for (uint32_t f = 0; f < catalog_.files.size(); ++f) {
      if (!Passes(filter_, f)) continue;
      const CatalogFile& file = catalog_.files[f];
      std::optional<Candidate> file_best;
      for (uint32_t p = 0; p < file.passages.size(); ++p) {
        VEXFS_ASSIGN_OR_RETURN(float score, ScoreOf(ann, file.passages[p].vector));
        Candidate c{f, p, score};
        if (request_.passages) {
          items.push_back(c);
        } else if (!file_best || score > file_best->score) {
          file_best = c;
        }
      }
      if (file_best) items.push_back(*file_best);
    }
    return KeepBest(std::move(items));
  }

  Result<float> ScoreOf(const VectorIndex* ann, uint64_t id) {
    if (ann != nullptr && id < ann->size()) {
      return Similarity(model_.info.metric, query_.data(), ann->vector(id), model_.info.dim);
    }
    VEXFS_RETURN_IF_ERROR(ReadVectorValues(txn_, ix_, model_, id, &scratch_));
    return Similarity(model_.info.metric, query_.data(), scratch_.data(), model_.info.dim);
  }

  // Best first; ties go to the earlier path (and passage), for stable answers.
  std::vector<RankedPassage> KeepBest(std::vector<Candidate> items) const {
    auto better = [](const Candidate& a, const Candidate& b) {
      if (a.score != b.score) return a.score > b.score;
      return a.file != b.file ? a.file < b.file : a.passage < b.passage;
    };
    size_t k = std::min(items.size(), depth_);
    std::partial_sort(items.begin(), items.begin() + k, items.end(), better);
    std::vector<RankedPassage> out;
    for (size_t i = 0; i < k; ++i) {
      const CatalogFile& f = catalog_.files[items[i].file];
      out.push_back({&catalog_, &f, &f.passages[items[i].passage], items[i].score});
    }
    return out;
  }

  // Scores exactly every visible id the graph does not hold yet (a build in
  // progress, or writes since the last catch-up); best first.
  Result<std::vector<ScoredId>> ScoreBeyond(const VectorIndex& ann) {
    std::vector<ScoredId> out;
    const std::vector<uint8_t>& bitmap = *visibility_.bitmap;
    for (uint64_t id = ann.size(); id < uint64_t{bitmap.size()} * 8; ++id) {
      if ((bitmap[id / 8] >> (id % 8) & 1) == 0) continue;
      VEXFS_ASSIGN_OR_RETURN(float score, ScoreOf(nullptr, id));
      out.push_back({id, score});
    }
    std::sort(out.begin(), out.end(), BetterId);
    return out;
  }

  static bool BetterId(const ScoredId& a, const ScoredId& b) {
    return a.score != b.score ? a.score > b.score : a.id < b.id;
  }

  // HNSW with the visibility bitmap as selector, merged with the exact scores
  // of the ids beyond the graph; asks for more ids until enough distinct files
  // (or passages) are found, and falls back to the exact scan when the graph
  // cannot reach enough visible vectors.
  Result<std::vector<RankedPassage>> Approximate(VectorIndex& ann) {
    out_.method = "hnsw";
    VEXFS_ASSIGN_OR_RETURN(std::vector<ScoredId> beyond, ScoreBeyond(ann));
    uint64_t want = std::min<uint64_t>(depth_, visibility_.matching_items);
    size_t ask = request_.passages ? depth_ : depth_ * 2;
    double fraction = double(visibility_.count) / double(std::max<uint64_t>(1, ann.size()));
    for (;;) {
      int base_ef = request_.ef_search > 0 ? request_.ef_search : tuning_.ef_search;
      int ef = std::max<int>(base_ef, static_cast<int>(ask));
      if (fraction < 0.5) ef = static_cast<int>(ef * std::min(0.5 / fraction, 16.0));
      ef = std::min(ef, std::max(kMaxEf, static_cast<int>(ask)));
      VEXFS_ASSIGN_OR_RETURN(auto ids, ann.Search(query_.data(), ask, *visibility_.bitmap, ef));
      size_t graph_ids = ids.size();
      std::sort(ids.begin(), ids.end(), BetterId);  // FAISS leaves ties in any order
      std::vector<ScoredId> merged(ids.size() + beyond.size());
      std::merge(ids.begin(), ids.end(), beyond.begin(), beyond.end(), merged.begin(), BetterId);
      std::vector<RankedPassage> found =
          Group(catalog_, filter_, request_.passages, depth_, merged);
      if (found.size() >= want) return found;
      if (graph_ids < ask || ask >= visibility_.count) break;  // the graph ran dry
      ask *= 4;
    }
    out_.method = "exact";
    return Exact(&ann);
  }

  const StoreTxn& txn_;
  const IndexTables& ix_;
  const ViewCatalog& catalog_;
  const FilterResult* filter_;
  const ModelRecord& model_;
  const std::vector<float>& query_;
  const SearchRequest& request_;
  size_t depth_;
  SearchTuning tuning_;
  Visibility visibility_;
  std::vector<float> scratch_;  // one vector read from the log
  SideRanking out_;
};

std::string Collapse(std::string raw) {
  raw.resize(CompleteUtf8Prefix(raw));
  std::string out;
  bool space = false;
  for (char c : raw) {
    bool ws = c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f';
    if (ws) {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

}  // namespace

std::string FilterKey(const SearchRequest& request) {
  bool none = request.under.empty() && request.where.empty() && !request.modified_after &&
              !request.modified_before;
  if (none) return "";
  // Lengths before strings, so no two different filters share a key.
  std::string key = std::to_string(request.under.size()) + ":" + request.under;
  for (const auto& [k, v] : request.where) {
    key += "|" + std::to_string(k.size()) + ":" + k + std::to_string(v.size()) + ":" + v;
  }
  key += "|a" + (request.modified_after ? std::to_string(*request.modified_after) : "-");
  key += "|b" + (request.modified_before ? std::to_string(*request.modified_before) : "-");
  return key;
}

Result<FilterResult> ApplyFilter(const StoreTxn& txn, const ViewCatalog& catalog,
                                 const SearchRequest& request) {
  return FilterBuilder(txn, catalog, request).Build();
}

uint64_t VisibleIds(const ViewCatalog& catalog, const FilterResult* filter) {
  return VisibilityOf(catalog, filter, /*passages=*/false).count;
}

Result<SideRanking> RankDense(const StoreTxn& txn, const IndexTables& ix,
                              const ViewCatalog& catalog, const FilterResult* filter,
                              const ModelRecord& model, const std::vector<float>& query,
                              const SearchRequest& request, size_t depth,
                              const SearchTuning& tuning, VectorIndex* graph) {
  DenseRanker ranker(txn, ix, catalog, filter, model, query, request, depth, tuning);
  VEXFS_ASSIGN_OR_RETURN(SideRanking out, ranker.Run(graph));
  out.unindexed_files = catalog.unindexed_files;
  out.unindexed_documents = catalog.unindexed_documents;
  return out;
}

Result<SideRanking> RankLexical(const ViewCatalog& catalog, const FilterResult* filter,
                                LexicalIndex* index, const SearchRequest& request, size_t depth) {
  Visibility visibility = VisibilityOf(catalog, filter, request.passages);
  SideRanking out;
  out.visible = visibility.count;
  out.unindexed_files = catalog.unindexed_files;
  out.unindexed_documents = catalog.unindexed_documents;
  if (index == nullptr) {  // nothing indexed yet: the query still gets read
    VEXFS_ASSIGN_OR_RETURN(ParsedQuery parsed, ParseLexicalQuery(request.query, Xapian::Database()));
    out.empty_query = parsed.empty;
    return out;
  }
  LexicalFeedback feedback;
  feedback.enabled = request.feedback;
  // Passages are matched, files returned: ask for more passages until enough
  // distinct files come back or the matches run out.
  uint64_t want = std::min<uint64_t>(depth, visibility.matching_items);
  size_t ask = request.passages ? depth : depth * 2;
  for (;;) {
    VEXFS_ASSIGN_OR_RETURN(LexicalMatches m,
                           index->Search(request.query, ask, *visibility.bitmap, visibility.count,
                                                         feedback));
    out.empty_query = m.empty_query;
    out.ranked = Group(catalog, filter, request.passages, depth, m.ids);
    if (out.ranked.size() >= want || m.ids.size() < ask || ask >= visibility.count) return out;
    ask *= 4;
  }
}

Result<SearchHit> MakeHit(StoreTxn* txn, const RankedPassage& ranked,
                          const SearchRequest& request) {
  const ViewCatalog& catalog = *ranked.catalog;
  const CatalogFile& f = *ranked.file;
  const StoredPassage& p = *ranked.passage;
  SearchHit hit;
  hit.path = f.path;
  hit.document = f.document;
  hit.offset = p.offset;
  hit.length = p.length;
  hit.score = ranked.score;
  if (!request.snippets) return hit;
  uint64_t n = std::min<uint64_t>(p.length, kSnippetBytes);
  std::string raw;
  if (!f.document.empty()) {
    if (!request.read_document) return hit;
    auto text = request.read_document(f.document);
    if (text.status().IsNotFound()) return hit;  // gone since: no snippet
    VEXFS_RETURN_IF_ERROR(text.status());
    if (p.offset < text->size()) raw = text->substr(p.offset, n);
  } else if (catalog.is_snapshot) {
    VEXFS_ASSIGN_OR_RETURN(raw, txn->ReadVersion(f.manifest, p.offset, n));
  } else {
    // The catalog holds the file's inode (numbers are never reused), so the
    // tree is not walked again by path.
    auto read = txn->ReadFile(f.ino, p.offset, n);
    // Removed since the view was cataloged: the hit stands, without a
    // snippet, rather than failing the whole search.
    if (read.status().IsNotFound() || read.status().code() == StatusCode::kIsDirectory) {
      return hit;
    }
    VEXFS_ASSIGN_OR_RETURN(raw, std::move(read));
  }
  hit.snippet = Collapse(std::move(raw));
  return hit;
}

}  // namespace vexfs::index
