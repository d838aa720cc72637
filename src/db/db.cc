// vexfs::Db (vexfs/db.h): opening a store with every part attached, the lazily
// opened index, and the one background indexer.
#include "vexfs/db.h"

#include <mutex>

#include "db/background_indexer.h"
#include "db/graph_search.h"

namespace vexfs {

struct Db::Rep {
  // Declared in the order they are built: destruction runs backwards, so the
  // indexer stops before the index it uses goes, and the index before the store.
  DbOptions options;
  std::unique_ptr<Store> store;
  std::vector<std::string> unattached;
  std::unique_ptr<Graph> graph;
  std::mutex index_mu;
  std::unique_ptr<Index> index;  // guarded by index_mu until set; never reset
  std::unique_ptr<db::BackgroundIndexer> indexer;
  db::NodeDocumentsCache node_selections;

  Result<Index*> OpenIndex() {
    std::lock_guard<std::mutex> lock(index_mu);
    if (index) return index.get();
    VEXFS_ASSIGN_OR_RETURN(index, Index::Open(store.get(), options.index));
    return index.get();
  }

  // Everything that waits for indexing: the index's queue of file changes,
  // then the node texts the graph queued.
  Status Drain(Index* opened, const ProgressFn& progress, const std::function<bool()>& stop) {
    VEXFS_RETURN_IF_ERROR(opened->Wait(progress, stop));
    return db::DrainGraphTexts(*graph, *opened, stop);
  }
};

DbOptions DefaultDbOptions() { return DbOptions(); }

namespace {

StoreOptions StoreOptionsFor(const DbOptions& options) {
  StoreOptions out;
  out.map_size = options.map_size;
  out.sync_on_commit = options.sync_on_commit;
  out.read_only = options.read_only;
  return out;
}

// Attaches the built-in extensions, then the program's own.
Status AttachExtensions(Store* store, const DbOptions& options, std::unique_ptr<Graph>* graph) {
  VEXFS_RETURN_IF_ERROR(Index::Attach(store));
  VEXFS_ASSIGN_OR_RETURN(*graph, Graph::Attach(store));
  for (const ExtensionFactory& make : options.extensions) {
    VEXFS_ASSIGN_OR_RETURN(std::shared_ptr<Extension> extension, make(store));
    if (extension == nullptr) return Status::InvalidArgument("an extension factory returned none");
    VEXFS_RETURN_IF_ERROR(AttachExtension(store, std::move(extension)));
  }
  return Status::Ok();
}

Result<std::vector<std::string>> UnattachedExtensions(Store* store) {
  VEXFS_ASSIGN_OR_RETURN(auto registrations, RegisteredExtensions(store));
  std::vector<std::string> out;
  for (const ExtensionRegistration& r : registrations) {
    if (!r.attached) out.push_back(r.name);
  }
  return out;
}

}  // namespace

// Everything Open and Create share once the store is open: the branch check, the
// extensions, and the background indexer.
Result<std::unique_ptr<Db>> Db::Attach(std::unique_ptr<Store> opened, const DbOptions& options) {
  auto rep = std::make_unique<Rep>();
  rep->options = options;
  rep->store = std::move(opened);
  Store* store = rep->store.get();
  if (!options.branch.empty()) VEXFS_RETURN_IF_ERROR(store->Tree(options.branch).status());
  VEXFS_RETURN_IF_ERROR(AttachExtensions(store, options, &rep->graph));
  VEXFS_ASSIGN_OR_RETURN(rep->unattached, UnattachedExtensions(store));
  // A store whose files are read-only opens read-only whatever was asked.
  if (IsReadOnly(store)) rep->options.read_only = true;
  if (options.background_indexing && !rep->options.read_only) {
    VEXFS_ASSIGN_OR_RETURN(auto watch, CommitWatch::Open(store));
    Rep* raw = rep.get();
    auto drain = [raw](Index* index, const std::function<bool()>& stop) {
      return raw->Drain(index, nullptr, stop);
    };
    rep->indexer = std::make_unique<db::BackgroundIndexer>(
        [raw] { return raw->OpenIndex(); }, std::move(drain), std::move(watch), options.branch);
    rep->indexer->Start();
  }
  return std::unique_ptr<Db>(new Db(std::move(rep)));
}

Result<std::unique_ptr<Db>> Db::Open(const std::string& path, const DbOptions& options) {
  VEXFS_ASSIGN_OR_RETURN(auto store, Store::Open(path, StoreOptionsFor(options)));
  return Attach(std::move(store), options);
}

Result<std::unique_ptr<Db>> Db::Create(const std::string& path, const DbOptions& options) {
  if (options.read_only) return Status::InvalidArgument("a store cannot be created read-only");
  // A bad embedder is refused before anything is written.
  if (!options.embedder.empty()) {
    VEXFS_RETURN_IF_ERROR(Index::CheckEmbedder(options.embedder));
  }
  VEXFS_ASSIGN_OR_RETURN(auto store, Store::Create(path, StoreOptionsFor(options)));
  // Recording the embedder also registers the index, so every change from the
  // first write on is queued for it one by one (Attach does it otherwise).
  if (!options.embedder.empty()) {
    VEXFS_RETURN_IF_ERROR(Index::SetEmbedder(store.get(), options.embedder));
  }
  return Attach(std::move(store), options);
}

Db::Db(std::unique_ptr<Rep> rep) : rep_(std::move(rep)) {}
Db::~Db() = default;

Store& Db::store() { return *rep_->store; }
const std::string& Db::path() const { return rep_->store->path(); }
const std::string& Db::branch() const { return rep_->options.branch; }
bool Db::read_only() const { return rep_->options.read_only; }
bool Db::background_indexing() const { return rep_->indexer != nullptr; }
const std::vector<std::string>& Db::unattached_extensions() const { return rep_->unattached; }

Result<Index*> Db::index() { return rep_->OpenIndex(); }
Graph& Db::graph() { return *rep_->graph; }

Status Db::WaitIndexed(const ProgressFn& progress, const ProgressFn& hnsw_progress) {
  if (read_only()) return Status::ReadOnly("a store opened read-only cannot index");
  VEXFS_ASSIGN_OR_RETURN(Index * index, rep_->OpenIndex());
  VEXFS_RETURN_IF_ERROR(rep_->Drain(index, progress, nullptr));
  return index->CatchUp(nullptr, hnsw_progress, branch());
}

Result<SearchResult> Db::Search(const SearchRequest& request, bool wait) {
  VEXFS_ASSIGN_OR_RETURN(Index * index, rep_->OpenIndex());
  if (wait && !read_only()) VEXFS_RETURN_IF_ERROR(rep_->Drain(index, nullptr, nullptr));
  SearchRequest scoped = request;
  if (scoped.snapshot.empty() && scoped.branch.empty()) scoped.branch = branch();
  return index->Search(scoped);
}

Result<SearchResult> Db::SearchGraph(const SearchRequest& request, const NodeSearch& nodes,
                                     bool wait) {
  VEXFS_ASSIGN_OR_RETURN(Index * index, rep_->OpenIndex());
  if (wait && !read_only()) VEXFS_RETURN_IF_ERROR(rep_->Drain(index, nullptr, nullptr));
  SearchRequest scoped = request;
  if (scoped.snapshot.empty() && scoped.branch.empty()) scoped.branch = branch();
  // Taken before the graph is read: a commit after it makes a new key.
  std::string key = db::NodeSelectionKey(scoped, nodes, store().LastCommitId());
  std::shared_ptr<const db::NodeDocuments> selected = rep_->node_selections.Find(key);
  if (!selected) {
    VEXFS_ASSIGN_OR_RETURN(db::NodeDocuments built, db::SelectNodes(graph(), scoped, nodes));
    selected = std::make_shared<const db::NodeDocuments>(std::move(built));
    rep_->node_selections.Insert(key, selected);
  }
  db::UseNodeDocuments(std::move(selected), nodes, &scoped);
  return index->Search(scoped);
}

Status Db::SetEmbedder(std::string_view spec) {
  if (read_only()) return Status::ReadOnly("a store opened read-only cannot change its embedder");
  VEXFS_RETURN_IF_ERROR(Index::SetEmbedder(&store(), spec));
  return graph().RequeueTexts();
}

Result<DbBranch> Db::Branch(std::string_view name) {
  std::string resolved(name);
  if (resolved.empty()) {
    VEXFS_ASSIGN_OR_RETURN(resolved, store().CurrentBranch());
  }
  VEXFS_ASSIGN_OR_RETURN(std::vector<BranchInfo> branches, store().ListBranches());
  for (const BranchInfo& b : branches) {
    if (b.name == resolved) return DbBranch(this, std::move(resolved));
  }
  return Status::NotFound("branch '" + resolved + "' does not exist");
}

Result<std::unique_ptr<WorkingTree>> DbBranch::Tree() const { return db_->store().Tree(name_); }

Result<SearchResult> DbBranch::Search(SearchRequest request, bool wait) const {
  request.branch = name_;
  return db_->Search(request, wait);
}

Result<CommitInfo> DbBranch::Snapshot(std::string_view name, std::string_view message,
                                      const std::map<std::string, std::string>& meta) const {
  return db_->store().CreateSnapshot(name, message, meta, name_);
}

Status DbBranch::Restore(std::string_view snapshot) const {
  return db_->store().Restore(snapshot, name_);
}

uint64_t Db::IndexedVersion() {
  std::lock_guard<std::mutex> lock(rep_->index_mu);
  return rep_->index ? rep_->index->IndexedVersion() : 0;
}

}  // namespace vexfs
