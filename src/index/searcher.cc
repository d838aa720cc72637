// Filtered exact and HNSW search over a view catalog.
#include "index/searcher.h"

#include <algorithm>

#include "index/text_detect.h"
#include "index/vector_log.h"
#include "store/records.h"

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
  FilterBuilder(internal::StoreImpl* impl, const ViewCatalog& catalog,
                const SearchRequest& request)
      : impl_(impl), catalog_(catalog), request_(request) {}

  Result<FilterResult> Build() {
    FilterResult out;
    out.passes.assign(catalog_.files.size(), false);
    out.visible.assign(catalog_.all_visible.size(), 0);
    internal::Txn txn;
    VEXFS_RETURN_IF_ERROR(impl_->BeginTxn(&txn, false));
    for (size_t i = 0; i < catalog_.files.size(); ++i) {
      const CatalogFile& f = catalog_.files[i];
      VEXFS_ASSIGN_OR_RETURN(bool ok, Passes(txn, f));
      if (!ok) continue;
      out.passes[i] = true;
      out.visible_count += MarkVisible(f, &out.visible);
      out.matching_files += 1;
      out.matching_passages += f.passages.size();
    }
    return out;
  }

 private:
  Result<bool> Passes(const internal::Txn& txn, const CatalogFile& f) {
    if (f.passages.empty() || !PathIsUnder(f.path, request_.under)) return false;
    if (request_.modified_after && f.mtime < *request_.modified_after) return false;
    if (request_.modified_before && f.mtime >= *request_.modified_before) return false;
    if (request_.where.empty()) return true;
    VEXFS_ASSIGN_OR_RETURN(XattrMap xattrs, XattrsOf(txn, f));
    for (const auto& [key, value] : request_.where) {
      auto it = xattrs.find(MetaXattrName(key));
      if (it == xattrs.end() || it->second != value) return false;
    }
    return true;
  }

  Result<XattrMap> XattrsOf(const internal::Txn& txn, const CatalogFile& f) {
    if (catalog_.is_snapshot) {
      internal::ObjectTable objects(const_cast<internal::Txn*>(&txn), impl_->dbs().objects);
      VEXFS_ASSIGN_OR_RETURN(internal::Manifest m, objects.GetManifest(f.manifest));
      return m.xattrs;
    }
    XattrMap out;
    std::string prefix = internal::XattrPrefix(catalog_.branch_id, f.ino);
    VEXFS_ASSIGN_OR_RETURN(auto rows, internal::ScanPrefix(txn, impl_->dbs().xattrs, prefix));
    for (auto& [key, value] : rows) out[key.substr(prefix.size())] = value;
    return out;
  }

  internal::StoreImpl* impl_;
  const ViewCatalog& catalog_;
  const SearchRequest& request_;
};

class Search {
 public:
  Search(internal::StoreImpl* impl, const ViewCatalog& catalog, const FilterResult* filter,
         const ModelRecord& model, const std::vector<float>& query,
         const SearchRequest& request, const SearchTuning& tuning)
      : impl_(impl), catalog_(catalog), filter_(filter), model_(model), query_(query),
        request_(request), tuning_(tuning) {}

  Result<SearchResult> Run(const VectorIndexGetter& get_index) {
    UseFilter();
    result_.model = model_.info.name;
    result_.unindexed_files = catalog_.unindexed_files;
    result_.visible_vectors = visible_count_;
    std::vector<Candidate> best;
    if (visible_count_ <= tuning_.exact_max_visible) {
      result_.method = "exact";
      // The graph's copy of the vectors, when loaded, beats reading the log.
      VEXFS_ASSIGN_OR_RETURN(VectorIndex* loaded, get_index(/*load=*/false));
      VEXFS_ASSIGN_OR_RETURN(best, Exact(loaded));
    } else {
      VEXFS_ASSIGN_OR_RETURN(VectorIndex* ann, get_index(/*load=*/true));
      VEXFS_ASSIGN_OR_RETURN(best, Approximate(*ann));
    }
    VEXFS_RETURN_IF_ERROR(MakeHits(best));
    return std::move(result_);
  }

 private:
  void UseFilter() {
    if (filter_ == nullptr) {  // every file passes: nothing to compute per query
      visible_ = &catalog_.all_visible;
      visible_count_ = catalog_.visible_vectors;
      matching_items_ = request_.passages ? catalog_.uses.size() : catalog_.searchable_files;
      return;
    }
    visible_ = &filter_->visible;
    visible_count_ = filter_->visible_count;
    matching_items_ = request_.passages ? filter_->matching_passages : filter_->matching_files;
  }

  bool Passes(uint32_t file) const { return filter_ == nullptr || filter_->passes[file]; }

  // Scores every visible passage; keeps the k best files (or passages).
  Result<std::vector<Candidate>> Exact(const VectorIndex* ann) {
    internal::Txn txn;
    VEXFS_RETURN_IF_ERROR(impl_->BeginTxn(&txn, false));
    std::vector<Candidate> items;
    for (uint32_t f = 0; f < catalog_.files.size(); ++f) {
      if (!Passes(f)) continue;
      const CatalogFile& file = catalog_.files[f];
      std::optional<Candidate> file_best;
      for (uint32_t p = 0; p < file.passages.size(); ++p) {
        VEXFS_ASSIGN_OR_RETURN(float score, ScoreOf(txn, ann, file.passages[p].vector));
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

  Result<float> ScoreOf(const internal::Txn& txn, const VectorIndex* ann, uint64_t id) {
    if (ann != nullptr && id < ann->size()) {
      return Similarity(model_.info.metric, query_.data(), ann->vector(id), model_.info.dim);
    }
    VEXFS_RETURN_IF_ERROR(ReadVectorValues(txn, impl_->dbs(), model_, id, &scratch_));
    return Similarity(model_.info.metric, query_.data(), scratch_.data(), model_.info.dim);
  }

  // Best first; ties go to the earlier path (and passage), for stable answers.
  std::vector<Candidate> KeepBest(std::vector<Candidate> items) const {
    auto better = [](const Candidate& a, const Candidate& b) {
      if (a.score != b.score) return a.score > b.score;
      return a.file != b.file ? a.file < b.file : a.passage < b.passage;
    };
    size_t k = std::min(items.size(), request_.k);
    std::partial_sort(items.begin(), items.begin() + k, items.end(), better);
    items.resize(k);
    return items;
  }

  // HNSW with the visibility bitmap as selector; asks for more ids until k
  // distinct files (or passages) are found, and falls back to the exact scan
  // when the graph cannot reach enough visible vectors.
  Result<std::vector<Candidate>> Approximate(VectorIndex& ann) {
    result_.method = "hnsw";
    uint64_t want = std::min<uint64_t>(request_.k, matching_items_);
    size_t ask = request_.passages ? request_.k : request_.k * 2;
    double fraction = double(visible_count_) / double(std::max<uint64_t>(1, ann.size()));
    for (;;) {
      int base_ef = request_.ef_search > 0 ? request_.ef_search : tuning_.ef_search;
      int ef = std::max<int>(base_ef, static_cast<int>(ask));
      if (fraction < 0.5) ef = static_cast<int>(ef * std::min(0.5 / fraction, 16.0));
      ef = std::min(ef, std::max(kMaxEf, static_cast<int>(ask)));
      VEXFS_ASSIGN_OR_RETURN(auto ids, ann.Search(query_.data(), ask, *visible_, ef));
      std::vector<Candidate> found = Group(ids);
      if (found.size() >= want) return found;
      if (ids.size() < ask || ask >= visible_count_) break;  // the graph ran dry
      ask *= 4;
    }
    result_.method = "exact";
    return Exact(&ann);
  }

  // Turns ids (best first) into candidates of files that pass the filters.
  std::vector<Candidate> Group(const std::vector<ScoredId>& ids) const {
    std::vector<Candidate> out;
    std::vector<bool> taken(request_.passages ? 0 : catalog_.files.size(), false);
    for (const ScoredId& id : ids) {
      auto it = std::lower_bound(catalog_.uses.begin(), catalog_.uses.end(), id.id,
                                 [](const VectorUse& u, uint64_t v) { return u.vector < v; });
      for (; it != catalog_.uses.end() && it->vector == id.id; ++it) {
        if (!Passes(it->file)) continue;
        if (!request_.passages) {
          if (taken[it->file]) continue;
          taken[it->file] = true;
        }
        out.push_back({it->file, it->passage, id.score});
        if (out.size() == request_.k) return out;
      }
    }
    return out;
  }

  Status MakeHits(const std::vector<Candidate>& best) {
    for (const Candidate& c : best) {
      const CatalogFile& f = catalog_.files[c.file];
      const StoredPassage& p = f.passages[c.passage];
      SearchHit hit{f.path, p.offset, p.length, c.score, ""};
      if (request_.snippets) {
        VEXFS_ASSIGN_OR_RETURN(hit.snippet, Snippet(f, p));
      }
      result_.hits.push_back(std::move(hit));
    }
    return Status::Ok();
  }

  Result<std::string> Snippet(const CatalogFile& f, const StoredPassage& p) {
    uint64_t n = std::min<uint64_t>(p.length, kSnippetBytes);
    internal::Txn txn;
    VEXFS_RETURN_IF_ERROR(impl_->BeginTxn(&txn, false));
    internal::ObjectTable objects(&txn, impl_->dbs().objects);
    std::string raw;
    if (catalog_.is_snapshot) {
      VEXFS_ASSIGN_OR_RETURN(internal::Manifest m, objects.GetManifest(f.manifest));
      VEXFS_ASSIGN_OR_RETURN(raw, internal::ReadManifestRange(objects, m, p.offset, n));
    } else {
      txn.Abort();
      WorkingTree tree(impl_, catalog_.branch);
      auto read = tree.Read(f.path, p.offset, n);
      // Removed or replaced since the view was cataloged: the hit stands, without
      // a snippet, rather than failing the whole search.
      if (read.status().IsNotFound() || read.status().code() == StatusCode::kIsDirectory) {
        return std::string();
      }
      VEXFS_ASSIGN_OR_RETURN(raw, std::move(read));
    }
    return Collapse(raw);
  }

  static std::string Collapse(std::string raw) {
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

  internal::StoreImpl* impl_;
  const ViewCatalog& catalog_;
  const FilterResult* filter_;
  const ModelRecord& model_;
  const std::vector<float>& query_;
  const SearchRequest& request_;
  SearchTuning tuning_;
  std::vector<float> scratch_;  // one vector read from the log
  const std::vector<uint8_t>* visible_ = nullptr;
  uint64_t visible_count_ = 0;
  uint64_t matching_items_ = 0;
  SearchResult result_;
};

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

Result<FilterResult> ApplyFilter(internal::StoreImpl* impl, const ViewCatalog& catalog,
                                 const SearchRequest& request) {
  return FilterBuilder(impl, catalog, request).Build();
}

Result<SearchResult> SearchCatalog(internal::StoreImpl* impl, const ViewCatalog& catalog,
                                   const FilterResult* filter, const ModelRecord& model,
                                   const std::vector<float>& query,
                                   const SearchRequest& request, const SearchTuning& tuning,
                                   const VectorIndexGetter& get_index) {
  Search search(impl, catalog, filter, model, query, request, tuning);
  return search.Run(get_index);
}

}  // namespace vexfs::index
