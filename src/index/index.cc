// The public search API: embedder choice, indexing, cached view catalogs and
// the published HNSW graphs, tied together.
#include "vexfs/index.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <mutex>
#include <tuple>

#include "common/sha256.h"
#include "index/dense/published_graphs.h"
#include "index/dense/supplied_vectors.h"
#include "index/dense/vector_log.h"
#include "index/embedders/factory.h"
#include "index/indexing/file_passages.h"
#include "index/indexing/indexer.h"
#include "index/indexing/text_detect.h"
#include "index/lexical/analysis.h"
#include "index/lexical/loaded_lexical.h"
#include "index/model_registry.h"
#include "index/search/fusion.h"
#include "index/search/lru_cache.h"
#include "index/search/searcher.h"
#include "index/search/view_catalog.h"
#include "index/search_tables.h"
#include "vexfs/extension.h"

namespace vexfs {

std::string MetaXattrName(std::string_view key) { return "user.vexfs.meta." + std::string(key); }

ObjectId SearchTextId(std::string_view text) {
  Sha256 digest;
  digest.Update(std::string_view("vexfs-search-text-1", 20));  // with its 0x00
  digest.Update(text);
  return digest.Finish();
}

namespace index {
namespace {

constexpr size_t kMaxK = 10000;
// Each view has a catalog per model, and one more per set of documents.
constexpr size_t kCachedCatalogs = 8;
constexpr size_t kCachedFilters = 8;
// Key in the models table of the embedder spec the user chose (search_tables.cc
// moves a format-1 store's setting there).
constexpr std::string_view kEmbedderKey = "embedder";
constexpr std::string_view kLegacyEmbedderKey = "ix_embedder";  // format 1, in meta

// The embedder the store records; without a record, the default of the release
// that indexed it: a store with "hash-384" vectors but no record was indexed when
// "hash" was the default, and keeps it until the user chooses another.
Result<std::string> StoredEmbedderSpec(Store* store, const IndexTables& ix) {
  StoreTxn txn;
  VEXFS_RETURN_IF_ERROR(txn.Begin(store, false));
  VEXFS_ASSIGN_OR_RETURN(auto raw, txn.Get(ix.models, kEmbedderKey));
  if (raw) return std::string(*raw);
  // A format-1 store on read-only media keeps the setting where format 1 did.
  VEXFS_ASSIGN_OR_RETURN(auto legacy, txn.ReadLegacySetting(kLegacyEmbedderKey));
  if (legacy) return *legacy;
  VEXFS_ASSIGN_OR_RETURN(auto models, ListModels(txn, ix));
  for (const ModelRecord& m : models) {
    if (m.kind == ModelKind::kEmbedded && m.info.name == "hash-384") {
      return std::string(kLegacyDefaultEmbedderSpec);
    }
  }
  return std::string(kDefaultEmbedderSpec);
}

// Hybrid where the embedder understands sentences; lexical with word vectors or
// hash, whose fusion ranks below plain BM25 (docs/BENCHMARKS.md, "Search quality").
SearchMode DefaultSearchModeFor(const ModelInfo& model) {
  return model.sentence ? SearchMode::kHybrid : SearchMode::kLexical;
}

// `fallback`: the store's default for a text request that names no mode.
SearchMode EffectiveMode(const SearchRequest& r, SearchMode fallback) {
  if (r.mode) return *r.mode;
  return !r.vector.empty() || !r.model.empty() ? SearchMode::kDense : fallback;
}

Status ValidateRequest(const SearchRequest& r, SearchMode fallback) {
  if (r.query.empty() && r.vector.empty()) {
    return Status::InvalidArgument("the query is empty: give text or a vector");
  }
  if (r.k == 0 || r.k > kMaxK) {
    return Status::InvalidArgument("k must be 1-" + std::to_string(kMaxK) + ", not " +
                                   std::to_string(r.k));
  }
  if (!r.snapshot.empty() && !r.branch.empty()) {
    return Status::InvalidArgument("search a snapshot or a branch, not both");
  }
  if (EffectiveMode(r, fallback) == SearchMode::kLexical && r.query.empty()) {
    return Status::InvalidArgument("lexical search needs query text, not only a vector");
  }
  if (r.query.size() > kMaxQueryBytes) {
    return Status::InvalidArgument("the query is " + std::to_string(r.query.size()) +
                                   " bytes; at most " + std::to_string(kMaxQueryBytes) +
                                   " are searched");
  }
  if (!IsValidUtf8(r.query)) return Status::InvalidArgument("the query is not valid UTF-8");
  return Status::Ok();
}

// Equal scores are listed by path (or document key) and offset, not in the
// order of the store-local passage ids the rankers break ties with: two stores
// holding the same snapshot (an agent moved by a bundle) list the same hits in
// the same order, and keep the same ones at the cut. So the rankers are asked
// for kTieMargin hits past k, which are ordered, then cut to k, before any
// snippet is read. A tie group reaching further past the cut than that is the
// one case left to the ids, and so are a hybrid search's fused ties, which
// the sides' ranks already split. Items arrive best first.
constexpr size_t kTieMargin = 16;
size_t WithTieMargin(size_t k) { return k + kTieMargin; }

template <typename Item, typename ScoreOf, typename PassageOf>
void OrderTies(std::vector<Item>* items, size_t k, ScoreOf score_of, PassageOf passage_of) {
  auto key = [&](const Item& item) {
    const RankedPassage& r = passage_of(item);
    return std::tie(r.file->path, r.file->document, r.passage->offset);
  };
  std::stable_sort(items->begin(), items->end(), [&](const Item& a, const Item& b) {
    if (score_of(a) != score_of(b)) return score_of(a) > score_of(b);
    return key(a) < key(b);
  });
  if (items->size() > k) items->resize(k);
}
}  // namespace

class IndexImpl {
 public:
  IndexImpl(Store* store, IndexTables ix, IndexOptions options,
            std::unique_ptr<Embedder> embedder, std::string spec)
      : store_(store), ix_(std::move(ix)), options_(std::move(options)),
        embedder_(std::move(embedder)), spec_(std::move(spec)),
        lexical_(store_, IndexDir()),
        graphs_(store_, IndexDir(),
                HnswParams{options_.hnsw_m, options_.hnsw_ef_construction,
                           options_.hnsw_ef_search},
                options_.exact_max_visible),
        default_mode_(DefaultSearchModeFor(embedder_->info())) {}
  Result<IndexStatus> GetStatus();
  Status Wait(const ProgressFn& progress, const std::function<bool()>& stop);
  Status CatchUp(const std::function<bool()>& stop, const ProgressFn& progress,
                 const std::string& branch);
  SearchMode DefaultMode() const { return default_mode_; }
  uint64_t indexed_version() const { return indexed_version_.load(); }
  Status Rebuild(const ProgressFn& progress);
  Status IndexTexts(const std::vector<std::string>& texts);
  Result<SearchResult> Search(const SearchRequest& request);
  Store* store() { return store_; }
  Result<VectorMetric> RegisteredMetric(std::string_view name) {
    StoreTxn txn;
    VEXFS_RETURN_IF_ERROR(txn.Begin(store_, false));
    VEXFS_ASSIGN_OR_RETURN(auto model, FindModel(txn, ix_, name));
    bool l2 = model && model->info.metric == Metric::kL2;
    return l2 ? VectorMetric::kL2 : VectorMetric::kInnerProduct;
  }
  Status SetVectors(std::string_view model, VectorMetric metric,
                    const std::vector<SuppliedVector>& vectors, std::string_view branch) {
    if (vectors.empty()) return Status::Ok();
    ModelInfo info{std::string(model), static_cast<uint32_t>(vectors.front().values.size()),
                   metric == VectorMetric::kL2 ? Metric::kL2 : Metric::kInnerProduct,
                   "supplied"};
    return StoreSuppliedVectors(store_, branch, info, vectors);
  }

 private:
  // What one search reads, all of it in one read transaction: the models, the
  // filters' metadata, vectors beyond the graph and the hits' snippets (the
  // transaction is bound to the working tree searched; unbound for a
  // snapshot). Cached catalogs are keyed by the last commit seen before it
  // began, so a catalog is never older than that commit. It also keeps the
  // catalogs and filters alive while the search builds its hits.
  struct View {
    StoreTxn txn;
    uint64_t last_commit = 0;
    std::shared_ptr<const ViewCatalog> dense_catalog, lexical_catalog;
    std::shared_ptr<const FilterResult> dense_filter, lexical_filter;
  };
  // A filter result with the catalog whose files it indexes, kept alive with it.
  struct FilterEntry {
    std::shared_ptr<const ViewCatalog> catalog;
    FilterResult result;
  };

  Status BeginView(const SearchRequest& request, View* view);
  Result<ModelRecord> ResolveModel(const SearchRequest& request, const StoreTxn& txn);
  Result<std::vector<float>> QueryVector(const SearchRequest& request, const ModelRecord& model);
  // The catalog a request ranks: the view's files, its documents, or both.
  Result<std::shared_ptr<const ViewCatalog>> Catalog(const SearchRequest& request,
                                                     const ModelRecord& model, View* view);
  Result<std::shared_ptr<const ViewCatalog>> FileCatalog(const SearchRequest& request,
                                                         const ModelRecord& model, View* view);
  // The filter result of `request` over `catalog` (null without filters), cached.
  Result<std::shared_ptr<const FilterResult>> Filter(
      const std::shared_ptr<const ViewCatalog>& catalog, const SearchRequest& request,
      const StoreTxn& txn);
  Result<std::optional<ModelRecord>> LexicalModel(const StoreTxn& txn);
  Status CatchUpLexical(const std::function<bool()>& stop);
  Status CatchUpGraphs(const std::function<bool()>& stop, const ProgressFn& progress);
  Status WarmCatalogs(const std::string& branch);
  Result<SideRanking> SearchDense(const SearchRequest& request, size_t depth, View* view);
  Result<SideRanking> SearchLexical(const SearchRequest& request, size_t depth, View* view);
  Status RebuildModel(const ModelRecord& m, const ProgressFn& progress);
  // The embedder drains use, made on first use; the caller holds index_mu_.
  Result<Embedder*> IndexingEmbedder();
  IndexerOptions IndexingOptions() const;
  std::string IndexDir() const { return store_->path() + "/index"; }

  Store* store_;
  IndexTables ix_;
  IndexOptions options_;
  std::mutex embed_mu_;  // guards embedder_, which embeds queries
  std::unique_ptr<Embedder> embedder_;
  std::string spec_;
  std::mutex index_mu_;  // guards index_embedder_ and serialises Wait()
  std::unique_ptr<Embedder> index_embedder_;

  // Catalogs by view and model; filter results by catalog (alive while its
  // entry is, so its address names it) and filters.
  LruCache<std::string, ViewCatalog> catalogs_{kCachedCatalogs};
  LruCache<std::pair<const ViewCatalog*, std::string>, FilterEntry> filters_{kCachedFilters};

  LoadedLexical lexical_;
  PublishedGraphs graphs_;


  std::atomic<uint64_t> indexed_version_{0};  // drains by this Index that did work
  const SearchMode default_mode_;
};

Result<IndexStatus> IndexImpl::GetStatus() {
  StoreTxn txn;
  VEXFS_RETURN_IF_ERROR(txn.Begin(store_, false));
  IndexStatus status;
  status.embedder = spec_;
  VEXFS_ASSIGN_OR_RETURN(status.queued, ix_.work.Pending(txn));
  VEXFS_ASSIGN_OR_RETURN(auto models, ListModels(txn, ix_));
  for (const ModelRecord& m : models) {
    status.models.push_back({m.info.name, m.info.dim, MetricName(m.info.metric),
                             ModelKindName(m.kind),
                             m.info.fingerprint, m.next_vector});
  }
  return status;
}

Result<Embedder*> IndexImpl::IndexingEmbedder() {
  // Indexing has its own embedder, so a long drain never holds up a query.
  if (!index_embedder_) {
    VEXFS_ASSIGN_OR_RETURN(index_embedder_, MakeEmbedder(spec_));
  }
  return index_embedder_.get();
}

IndexerOptions IndexImpl::IndexingOptions() const {
  IndexerOptions options;
  options.lexical = options_.lexical;
  return options;
}

Status IndexImpl::Wait(const ProgressFn& progress, const std::function<bool()>& stop) {
  std::lock_guard lock(index_mu_);
  VEXFS_ASSIGN_OR_RETURN(Embedder * embedder, IndexingEmbedder());
  Indexer indexer(store_, embedder, IndexingOptions());
  uint64_t handled = 0;
  auto never = [] { return false; };
  Status st = indexer.Drain(progress, stop ? stop : std::function<bool()>(never), &handled);
  if (handled > 0) ++indexed_version_;
  return st;
}

Status IndexImpl::IndexTexts(const std::vector<std::string>& texts) {
  if (texts.empty()) return Status::Ok();
  std::vector<std::pair<ObjectId, std::string>> named;
  named.reserve(texts.size());
  for (const std::string& text : texts) named.emplace_back(SearchTextId(text), text);
  std::lock_guard lock(index_mu_);
  VEXFS_ASSIGN_OR_RETURN(Embedder * embedder, IndexingEmbedder());
  Indexer indexer(store_, embedder, IndexingOptions());
  Status st = indexer.IndexTexts(named);
  ++indexed_version_;  // batches applied before an error count too
  return st;
}

Status IndexImpl::Rebuild(const ProgressFn& progress) {
  StoreTxn txn;
  VEXFS_RETURN_IF_ERROR(txn.Begin(store_, false));
  VEXFS_ASSIGN_OR_RETURN(auto models, ListModels(txn, ix_));
  txn.Abort();
  for (const ModelRecord& m : models) VEXFS_RETURN_IF_ERROR(RebuildModel(m, progress));
  return Status::Ok();
}

Status IndexImpl::RebuildModel(const ModelRecord& m, const ProgressFn& progress) {
  if (m.kind == ModelKind::kLexical) return lexical_.Rebuild(m, progress);
  return graphs_.Rebuild(m, progress);
}

Status IndexImpl::BeginView(const SearchRequest& request, View* view) {
  view->last_commit = store_->LastCommitId();
  if (!request.snapshot.empty()) return view->txn.Begin(store_, /*write=*/false);
  return view->txn.BeginOnBranch(store_, /*write=*/false, request.branch);
}

Result<ModelRecord> IndexImpl::ResolveModel(const SearchRequest& request, const StoreTxn& txn) {
  std::string name = request.model.empty() ? embedder_->info().name : request.model;
  VEXFS_ASSIGN_OR_RETURN(auto model, FindModel(txn, ix_, name));
  if (model) return *model;
  if (request.model.empty()) {  // nothing indexed yet: an empty model answers nothing
    ModelRecord empty;
    empty.info = embedder_->info();
    return empty;
  }
  return Status::NotFound("model '" + name + "' is not registered in this store");
}

Result<std::vector<float>> IndexImpl::QueryVector(const SearchRequest& request,
                                                  const ModelRecord& model) {
  if (!request.vector.empty()) {
    VEXFS_RETURN_IF_ERROR(ValidateVector(model.info, request.vector.data(), request.vector.size())
                              .WithContext("query vector"));
    return request.vector;
  }
  if (model.kind == ModelKind::kSupplied || model.info.name != embedder_->info().name ||
      model.info.fingerprint != embedder_->info().fingerprint) {
    return Status::InvalidArgument("model '" + model.info.name + "' was not made by the text "
                                   "embedder in use ('" + embedder_->info().name +
                                   "'): give a query vector of dimension " +
                                   std::to_string(model.info.dim));
  }
  std::vector<float> out;
  std::lock_guard lock(embed_mu_);
  VEXFS_RETURN_IF_ERROR(embedder_->Embed({request.query}, &out).WithContext("embed the query"));
  VEXFS_RETURN_IF_ERROR(ValidateVector(model.info, out.data(), out.size())
                            .WithContext("embedder '" + model.info.name + "'"));
  return out;
}

// Names a request's documents in the catalog cache: a digest of every key and
// text id, in order, and whether files take part.
std::string DocumentsCacheKey(const SearchRequest& request) {
  std::string files = request.files ? ":d+" : ":d-";
  if (!request.documents_key.empty()) return files + "k" + request.documents_key;
  Sha256 digest;
  if (request.documents) {
    for (const SearchDocument& d : *request.documents) {
      digest.Update(std::to_string(d.key.size()) + ":");
      digest.Update(d.key);
      digest.Update(d.text.AsBytes());
    }
  }
  return files + digest.Finish().ToHex();
}

Result<std::shared_ptr<const ViewCatalog>> IndexImpl::Catalog(const SearchRequest& request,
                                                              const ModelRecord& model,
                                                              View* view) {
  bool no_documents = !request.documents || request.documents->empty();
  if (request.files && no_documents) return FileCatalog(request, model, view);
  std::shared_ptr<const ViewCatalog> files;
  if (request.files) {
    VEXFS_ASSIGN_OR_RETURN(files, FileCatalog(request, model, view));
  }
  // Keyed on the commit: a document's text may be indexed by any later one.
  std::string key = "D" + std::to_string(view->last_commit) + ":" + std::to_string(model.id) +
                    ":" + request.snapshot + ":" + request.branch + DocumentsCacheKey(request);
  if (auto cached = catalogs_.Find(key)) return cached;
  static const std::vector<SearchDocument> kNone;
  const std::vector<SearchDocument>& documents = no_documents ? kNone : *request.documents;
  VEXFS_ASSIGN_OR_RETURN(ViewCatalog built, BuildDocumentCatalog(view->txn, ix_, model,
                                                                 files.get(), documents));
  auto shared = std::make_shared<const ViewCatalog>(std::move(built));
  catalogs_.Insert(key, shared);
  return shared;
}

Result<std::shared_ptr<const ViewCatalog>> IndexImpl::FileCatalog(const SearchRequest& request,
                                                                  const ModelRecord& model,
                                                                  View* view) {
  std::string key;
  std::optional<ObjectId> commit;
  if (!request.snapshot.empty()) {
    VEXFS_ASSIGN_OR_RETURN(commit, view->txn.ResolveCommit(request.snapshot));
    VEXFS_ASSIGN_OR_RETURN(uint64_t gen, ReadIndexGeneration(view->txn, ix_));
    key = "s" + commit->ToHex() + ":" + std::to_string(gen);
  } else {
    // Any committed write may change a working tree: key on the last commit.
    key = "w" + request.branch + ":" + std::to_string(view->last_commit);
  }
  key += ":" + std::to_string(model.id);
  if (auto cached = catalogs_.Find(key)) return cached;
  ViewCatalog built;
  if (commit) {
    VEXFS_ASSIGN_OR_RETURN(built, BuildSnapshotCatalog(view->txn, ix_, *commit, model));
  } else {
    VEXFS_ASSIGN_OR_RETURN(built, BuildWorkingCatalog(&view->txn, ix_, model));
  }
  auto shared = std::make_shared<const ViewCatalog>(std::move(built));
  catalogs_.Insert(key, shared);
  return shared;
}

Result<std::shared_ptr<const FilterResult>> IndexImpl::Filter(
    const std::shared_ptr<const ViewCatalog>& catalog, const SearchRequest& request,
    const StoreTxn& txn) {
  std::string key = FilterKey(request);
  if (key.empty()) return std::shared_ptr<const FilterResult>();
  std::pair<const ViewCatalog*, std::string> cache_key{catalog.get(), key};
  auto entry = filters_.Find(cache_key);
  if (!entry) {
    VEXFS_ASSIGN_OR_RETURN(FilterResult built, ApplyFilter(txn, *catalog, request));
    entry = std::make_shared<const FilterEntry>(FilterEntry{catalog, std::move(built)});
    filters_.Insert(cache_key, entry);
  }
  return std::shared_ptr<const FilterResult>(entry, &entry->result);
}

Status IndexImpl::CatchUp(const std::function<bool()>& stop, const ProgressFn& progress,
                          const std::string& branch) {
  VEXFS_RETURN_IF_ERROR(CatchUpLexical(stop));
  VEXFS_RETURN_IF_ERROR(CatchUpGraphs(stop, progress));
  return WarmCatalogs(branch);
}

Status IndexImpl::CatchUpLexical(const std::function<bool()>& stop) {
  std::optional<ModelRecord> model;
  {
    StoreTxn txn;
    VEXFS_RETURN_IF_ERROR(txn.Begin(store_, false));
    VEXFS_ASSIGN_OR_RETURN(model, LexicalModel(txn));
  }
  if (!model) return Status::Ok();
  return lexical_.CatchUp(*model, stop);
}

Status IndexImpl::CatchUpGraphs(const std::function<bool()>& stop, const ProgressFn& progress) {
  std::vector<ModelRecord> models;
  {
    StoreTxn txn;
    VEXFS_RETURN_IF_ERROR(txn.Begin(store_, false));
    VEXFS_ASSIGN_OR_RETURN(models, ListModels(txn, ix_));
  }
  for (const ModelRecord& m : models) {
    if (m.kind == ModelKind::kLexical) continue;
    VEXFS_RETURN_IF_ERROR(graphs_.CatchUp(m, progress, stop));
  }
  return Status::Ok();
}

// The first search of `branch`'s working tree then finds its catalogs built,
// unless something was committed since.
Status IndexImpl::WarmCatalogs(const std::string& branch) {
  SearchRequest request;
  request.branch = branch;
  View view;
  VEXFS_RETURN_IF_ERROR(BeginView(request, &view));
  VEXFS_ASSIGN_OR_RETURN(ModelRecord dense, ResolveModel(request, view.txn));
  VEXFS_RETURN_IF_ERROR(Catalog(request, dense, &view).status());
  VEXFS_ASSIGN_OR_RETURN(auto lexical, LexicalModel(view.txn));
  if (lexical) VEXFS_RETURN_IF_ERROR(Catalog(request, *lexical, &view).status());
  return Status::Ok();
}

Result<std::optional<ModelRecord>> IndexImpl::LexicalModel(const StoreTxn& txn) {
  VEXFS_ASSIGN_OR_RETURN(auto model, FindModel(txn, ix_, kLexicalModelName));
  if (model && model->kind != ModelKind::kLexical) {
    return Status::Corruption("model '" + std::string(kLexicalModelName) + "' is not lexical");
  }
  return model;
}

Result<SideRanking> IndexImpl::SearchDense(const SearchRequest& request, size_t depth,
                                           View* view) {
  VEXFS_ASSIGN_OR_RETURN(ModelRecord model, ResolveModel(request, view->txn));
  VEXFS_ASSIGN_OR_RETURN(std::vector<float> query, QueryVector(request, model));
  VEXFS_ASSIGN_OR_RETURN(view->dense_catalog, Catalog(request, model, view));
  VEXFS_ASSIGN_OR_RETURN(view->dense_filter, Filter(view->dense_catalog, request, view->txn));
  SearchTuning tuning{options_.exact_max_visible, options_.hnsw_ef_search};
  // A graph is worth loading only where the ranking will ask it; it is never
  // built here, and whatever it lacks is scored exactly.
  bool load = VisibleIds(*view->dense_catalog, view->dense_filter.get()) >
              options_.exact_max_visible;
  VEXFS_ASSIGN_OR_RETURN(PublishedGraphs::Lease graph, graphs_.Acquire(model, load));
  VEXFS_ASSIGN_OR_RETURN(SideRanking out,
                         RankDense(view->txn, ix_, *view->dense_catalog,
                                   view->dense_filter.get(), model, query, request, depth, tuning,
                                   graph.get()));
  out.model = model.info.name;
  return out;
}

Result<SideRanking> IndexImpl::SearchLexical(const SearchRequest& request, size_t depth,
                                             View* view) {
  VEXFS_ASSIGN_OR_RETURN(auto model, LexicalModel(view->txn));
  if (!model) {
    // Nothing indexed yet: the catalog of an unregistered model still counts
    // the view's files as unindexed.
    ModelRecord none;
    none.kind = ModelKind::kLexical;
    none.info.name = std::string(kLexicalModelName);
    VEXFS_ASSIGN_OR_RETURN(view->lexical_catalog, Catalog(request, none, view));
    return RankLexical(*view->lexical_catalog, nullptr, nullptr, request, depth);
  }
  VEXFS_ASSIGN_OR_RETURN(view->lexical_catalog, Catalog(request, *model, view));
  VEXFS_ASSIGN_OR_RETURN(view->lexical_filter,
                         Filter(view->lexical_catalog, request, view->txn));
  VEXFS_ASSIGN_OR_RETURN(LoadedLexical::Lease lexical, lexical_.Acquire(*model));
  return RankLexical(*view->lexical_catalog, view->lexical_filter.get(), lexical.get(), request,
                     depth);
}

Result<SearchResult> IndexImpl::Search(const SearchRequest& request) {
  VEXFS_RETURN_IF_ERROR(ValidateRequest(request, default_mode_));
  SearchResult result;
  // Without query text (a vector alone) only the dense side can answer.
  SearchMode mode = EffectiveMode(request, default_mode_);
  bool lexical = mode != SearchMode::kDense && !request.query.empty();
  bool dense = mode != SearchMode::kLexical;
  View view;
  VEXFS_RETURN_IF_ERROR(BeginView(request, &view));
  size_t depth = lexical && dense ? std::max(request.k, kFusionDepth) : WithTieMargin(request.k);
  // The sides run one after the other: run at once on two threads they measured
  // no faster (search_scale_bench), so a query stays on its caller's thread.
  SideRanking lexical_side, dense_side;
  if (lexical) {
    VEXFS_ASSIGN_OR_RETURN(lexical_side, SearchLexical(request, depth, &view));
    result.lexical_model = std::string(kLexicalModelName);
    result.visible_passages = lexical_side.visible;
    if (lexical_side.empty_query) {
      if (!dense) {
        return Status::InvalidArgument("nothing to search for: the query has no words to match");
      }
      lexical = false;
      result.lexical_model.clear();
      result.note = "the query has no words to match: dense search only";
    }
  }
  if (dense) {
    VEXFS_ASSIGN_OR_RETURN(dense_side, SearchDense(request, depth, &view));
    result.model = dense_side.model;
    result.method = dense_side.method;
    result.visible_vectors = dense_side.visible;
  }
  result.unindexed_files = std::max(lexical_side.unindexed_files, dense_side.unindexed_files);
  result.unindexed_documents =
      std::max(lexical_side.unindexed_documents, dense_side.unindexed_documents);
  if (lexical && dense) {
    result.mode = SearchModeName(SearchMode::kHybrid);
    result.fusion = FusionMethodName(request.fusion);
    std::vector<FusedResult> fused =
        Fuse(dense_side, lexical_side, request.fusion, request.passages, WithTieMargin(request.k));
    OrderTies(&fused, request.k, [](const FusedResult& f) { return f.score; },
              [](const FusedResult& f) -> const RankedPassage& { return *f.shown; });
    for (const FusedResult& f : fused) {
      VEXFS_ASSIGN_OR_RETURN(SearchHit hit, MakeHit(&view.txn, *f.shown, request));
      hit.score = static_cast<float>(f.score);
      hit.dense = f.dense;
      hit.lexical = f.lexical;
      result.hits.push_back(std::move(hit));
    }
    return result;
  }
  SideRanking& side = lexical ? lexical_side : dense_side;
  result.mode = SearchModeName(lexical ? SearchMode::kLexical : SearchMode::kDense);
  OrderTies(&side.ranked, request.k, [](const RankedPassage& r) { return r.score; },
            [](const RankedPassage& r) -> const RankedPassage& { return r; });
  for (size_t i = 0; i < side.ranked.size(); ++i) {
    VEXFS_ASSIGN_OR_RETURN(SearchHit hit, MakeHit(&view.txn, side.ranked[i], request));
    (lexical ? hit.lexical : hit.dense) = HitRank{static_cast<uint32_t>(i + 1), hit.score};
    result.hits.push_back(std::move(hit));
  }
  return result;
}

}  // namespace index

Index::Index(std::unique_ptr<index::IndexImpl> impl) : impl_(std::move(impl)) {}
Index::~Index() = default;

Result<std::unique_ptr<Index>> Index::Open(Store* store, const IndexOptions& options) {
  VEXFS_ASSIGN_OR_RETURN(index::IndexTables ix, index::SearchTables(store));
  std::string spec = options.embedder;
  if (spec.empty()) {
    VEXFS_ASSIGN_OR_RETURN(spec, index::StoredEmbedderSpec(store, ix));
  }
  VEXFS_ASSIGN_OR_RETURN(auto embedder, index::MakeEmbedder(spec));
  auto impl = std::make_unique<index::IndexImpl>(store, ix, options, std::move(embedder), spec);
  return std::unique_ptr<Index>(new Index(std::move(impl)));
}

Status Index::Enable(Store* store) {
  if (IsReadOnly(store)) {
    return Status::ReadOnly("cannot enable the search index on a store opened read-only");
  }
  return index::SearchTables(store).status();
}

Status Index::Attach(Store* store) {
  Status st = index::SearchTables(store).status();
  // A read-only store that was never indexed has nothing to attach.
  if (st.IsNotFound() && IsReadOnly(store)) return Status::Ok();
  return st;
}

Status Index::CheckEmbedder(std::string_view spec) { return index::MakeEmbedder(spec).status(); }

Status Index::SetEmbedder(Store* store, std::string_view spec) {
  VEXFS_RETURN_IF_ERROR(index::MakeEmbedder(spec).status());
  VEXFS_ASSIGN_OR_RETURN(index::IndexTables ix, index::SearchTables(store));
  StoreTxn txn;
  VEXFS_RETURN_IF_ERROR(txn.Begin(store, true));
  VEXFS_RETURN_IF_ERROR(txn.Put(ix.models, index::kEmbedderKey, spec));
  // Everything must be embedded by the new model.
  VEXFS_RETURN_IF_ERROR(index::QueueEveryView(&txn, ix, /*forget_indexed=*/true));
  return txn.Commit();
}

Result<IndexStatus> Index::GetStatus() { return impl_->GetStatus(); }
Status Index::Wait(const ProgressFn& progress, const std::function<bool()>& stop) {
  return impl_->Wait(progress, stop);
}
Status Index::CatchUp(const std::function<bool()>& stop, const ProgressFn& progress,
                      std::string_view branch) {
  return impl_->CatchUp(stop ? stop : [] { return false; }, progress, std::string(branch));
}
SearchMode Index::DefaultMode() const { return impl_->DefaultMode(); }
uint64_t Index::IndexedVersion() const { return impl_->indexed_version(); }
Status Index::Rebuild(const ProgressFn& progress) { return impl_->Rebuild(progress); }
Result<SearchResult> Index::Search(const SearchRequest& request) { return impl_->Search(request); }
Status Index::IndexTexts(const std::vector<std::string>& texts) {
  return impl_->IndexTexts(texts);
}
Status Index::SetVector(std::string_view path, std::string_view model,
                        const std::vector<float>& values, std::string_view branch,
                        std::optional<std::pair<uint64_t, uint64_t>> range) {
  // A registered model keeps its metric; a new one starts as inner product.
  VEXFS_ASSIGN_OR_RETURN(VectorMetric metric, impl_->RegisteredMetric(model));
  return SetVectors(model, metric, {{std::string(path), range, values}}, branch);
}

Result<std::vector<FilePassage>> Index::FilePassages(std::string_view path,
                                                     std::string_view model,
                                                     std::string_view branch) {
  return index::ReadFilePassages(impl_->store(), path, model, branch);
}

Status Index::SetVectors(std::string_view model, VectorMetric metric,
                         const std::vector<SuppliedVector>& vectors, std::string_view branch) {
  return impl_->SetVectors(model, metric, vectors, branch);
}

}  // namespace vexfs
