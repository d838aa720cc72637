// vexfs::Graph (vexfs/graph.h): each call is one store transaction over the
// working graph of a branch or a snapshot's tree.
#include "vexfs/graph.h"

#include <map>
#include <set>

#include "graph/batch_writer.h"
#include "graph/graph_diff.h"
#include "graph/graph_extension.h"
#include "graph/queries.h"
#include "graph/record_source.h"
#include "graph/trie/trie_diff.h"
#include "vexfs/extension.h"

namespace vexfs {

using graph::GraphExtension;
using graph::GraphTables;
using graph::RecordSource;
using graph::TrieRef;

namespace {

constexpr std::string_view kWorking = "WORKING";

// The read transaction and record source one read uses.
struct ReadScope {
  StoreTxn txn;
  std::optional<graph::WorkingGraph> working;
  std::unique_ptr<RecordSource> source;
};

}  // namespace

struct Graph::Rep {
  Store* store = nullptr;
  GraphTables tables;

  // The graph root of snapshot `name`, nullopt where it has none. Resolved
  // before a read transaction begins, so that transaction sees its objects.
  Result<std::optional<ObjectId>> SnapshotRoot(std::string_view name) {
    VEXFS_ASSIGN_OR_RETURN(CommitInfo commit, store->ResolveSnapshot(name));
    auto it = commit.roots.find(graph::kGraphRootName);
    if (it == commit.roots.end()) return std::optional<ObjectId>();
    return std::optional<ObjectId>(it->second);
  }

  // The tree of a snapshot's graph root (count 0 where it has none).
  static Result<TrieRef> TopOf(const StoreTxn& txn, const std::optional<ObjectId>& root) {
    if (!root) return TrieRef{};
    VEXFS_ASSIGN_OR_RETURN(graph::GraphRoot decoded, graph::TrieReader(txn).ReadRoot(*root));
    return decoded.top;
  }

  Result<std::unique_ptr<ReadScope>> BeginRead(const GraphReadOptions& read) {
    auto scope = std::make_unique<ReadScope>();
    if (!read.snapshot.empty()) {
      VEXFS_ASSIGN_OR_RETURN(std::optional<ObjectId> root, SnapshotRoot(read.snapshot));
      VEXFS_RETURN_IF_ERROR(scope->txn.Begin(store, /*write=*/false));
      VEXFS_ASSIGN_OR_RETURN(TrieRef top, TopOf(scope->txn, root));
      scope->source = std::make_unique<graph::SnapshotSource>(scope->txn, top);
      return scope;
    }
    VEXFS_RETURN_IF_ERROR(scope->txn.BeginOnBranch(store, /*write=*/false, read.branch));
    scope->working.emplace(scope->txn, tables);
    scope->source = std::make_unique<graph::WorkingSource>(*scope->working);
    return scope;
  }

  Result<GraphWriteResult> ApplyIn(StoreTxn& txn, const GraphBatch& batch) {
    if (!txn.writable()) return Status::ReadOnly("graph: a write needs a write transaction");
    if (txn.branch_id() == 0) {
      return Status::InvalidArgument("graph: a write needs a transaction bound to a branch (BeginOnBranch, an edit's)");
    }
    if (tables.records.absent()) return Status::ReadOnly("graph: this store is read-only and has no graph");
    graph::WorkingGraph working(txn, tables);
    return graph::BatchWriter(working, NowNs()).Apply(batch);
  }

  Result<GraphDiff> Diff(std::string_view from, std::string_view to, std::string_view branch);
  Status DiffWithWorking(StoreTxn& txn, const TrieRef& other,
                         std::map<std::string, std::pair<std::optional<std::string>,
                                                         std::optional<std::string>>>* out);
};

Graph::Graph(std::unique_ptr<Rep> rep) : rep_(std::move(rep)) {}
Graph::~Graph() = default;

Result<std::unique_ptr<Graph>> Graph::Attach(Store* store) {
  auto rep = std::make_unique<Rep>();
  rep->store = store;
  if (auto found = FindExtension(store, graph::kGraphExtensionName)) {
    auto* attached = dynamic_cast<GraphExtension*>(found.get());
    if (attached == nullptr) return Status::InvalidArgument("an extension named 'graph' is not the graph");
    rep->tables = attached->tables();
    return std::unique_ptr<Graph>(new Graph(std::move(rep)));
  }
  VEXFS_ASSIGN_OR_RETURN(rep->tables, graph::RegisterGraphTables(store));
  Status attached = AttachExtension(store, std::make_shared<GraphExtension>(rep->tables));
  // Another thread attached it meanwhile: the tables are the same.
  if (!attached.ok() && attached.code() != StatusCode::kAlreadyExists) return attached;
  auto graph = std::unique_ptr<Graph>(new Graph(std::move(rep)));
  VEXFS_RETURN_IF_ERROR(graph->QueueTextsOnce());
  return graph;
}

// A graph written before its texts were queued for search (a store of an
// earlier build) has every text queued once, on the first writable open; the
// marker (the empty key of graph_texts) says it was done.
Status Graph::QueueTextsOnce() {
  if (IsReadOnly(rep_->store) || rep_->tables.texts.absent()) return Status::Ok();
  {
    StoreTxn txn;
    VEXFS_RETURN_IF_ERROR(txn.Begin(rep_->store, /*write=*/false));
    VEXFS_ASSIGN_OR_RETURN(auto marker, txn.Get(rep_->tables.texts, graph::kTextsQueuedMarker));
    if (marker) return Status::Ok();
  }
  VEXFS_RETURN_IF_ERROR(RequeueTexts());
  StoreTxn txn;
  VEXFS_RETURN_IF_ERROR(txn.Begin(rep_->store, /*write=*/true));
  VEXFS_RETURN_IF_ERROR(txn.Put(rep_->tables.texts, graph::kTextsQueuedMarker, "1"));
  return txn.Commit();
}

Result<GraphWriteResult> Graph::Apply(const GraphBatch& batch, std::string_view branch) {
  if (IsReadOnly(rep_->store)) return Status::ReadOnly("graph: the store is open read-only");
  StoreTxn txn;
  VEXFS_RETURN_IF_ERROR(txn.BeginOnBranch(rep_->store, /*write=*/true, branch));
  VEXFS_ASSIGN_OR_RETURN(GraphWriteResult result, rep_->ApplyIn(txn, batch));
  if (result.records_changed == 0) return result;  // nothing to commit
  VEXFS_RETURN_IF_ERROR(txn.Commit());
  return result;
}

Result<GraphWriteResult> Graph::ApplyIn(StoreTxn& txn, const GraphBatch& batch) {
  return rep_->ApplyIn(txn, batch);
}

Result<std::optional<GraphNode>> Graph::Node(const GraphId& id, const GraphReadOptions& read) {
  VEXFS_ASSIGN_OR_RETURN(auto scope, rep_->BeginRead(read));
  VEXFS_ASSIGN_OR_RETURN(std::optional<GraphNode> node, graph::ReadNode(*scope->source, id));
  if (node && !graph::Visible(node->times, read, NowNs())) node.reset();
  return node;
}

Result<std::optional<GraphEdge>> Graph::Edge(const GraphId& id, const GraphReadOptions& read) {
  VEXFS_ASSIGN_OR_RETURN(auto scope, rep_->BeginRead(read));
  VEXFS_ASSIGN_OR_RETURN(std::optional<GraphEdge> edge, graph::ReadEdge(*scope->source, id));
  if (edge && !graph::Visible(edge->times, read, NowNs())) edge.reset();
  return edge;
}

Result<std::vector<GraphNode>> Graph::Nodes(const GraphQuery& query) {
  VEXFS_ASSIGN_OR_RETURN(auto scope, rep_->BeginRead(query.read));
  return graph::QueryNodes(*scope->source, query, NowNs());
}

Status Graph::VisitNodes(const GraphQuery& query, const std::function<bool(GraphNode& node)>& visit) {
  VEXFS_ASSIGN_OR_RETURN(auto scope, rep_->BeginRead(query.read));
  return graph::VisitQueryNodes(*scope->source, query, NowNs(), visit);
}

Result<Neighborhood> Graph::Neighbors(const NeighborQuery& query) {
  VEXFS_ASSIGN_OR_RETURN(auto scope, rep_->BeginRead(query.read));
  return graph::QueryNeighbors(*scope->source, query, NowNs());
}

Result<GraphStats> Graph::Stats(const GraphReadOptions& read) {
  VEXFS_ASSIGN_OR_RETURN(auto scope, rep_->BeginRead(read));
  return graph::CountRecords(*scope->source);
}

Result<GraphDiff> Graph::Diff(std::string_view from, std::string_view to, std::string_view branch) {
  return rep_->Diff(from, to, branch);
}

Result<std::vector<PendingText>> Graph::PendingTexts(size_t limit, size_t max_bytes) {
  std::vector<PendingText> out;
  if (rep_->tables.texts.absent() || limit == 0) return out;
  StoreTxn txn;
  VEXFS_RETURN_IF_ERROR(txn.Begin(rep_->store, /*write=*/false));
  TableCursor cursor;
  VEXFS_RETURN_IF_ERROR(cursor.Open(txn, rep_->tables.texts));
  size_t bytes = 0;
  VEXFS_ASSIGN_OR_RETURN(bool more, cursor.First());
  for (; more && out.size() < limit && bytes < max_bytes; ) {
    if (cursor.key() != graph::kTextsQueuedMarker) {  // every other key is a text's hash
      if (cursor.key().size() != 32) return Status::Corruption("graph: a queued text's key is not 32 bytes");
      out.push_back({ObjectId::FromBytes(cursor.key()), std::string(cursor.value())});
      bytes += cursor.value().size();
    }
    VEXFS_ASSIGN_OR_RETURN(more, cursor.Next());
  }
  return out;
}

Status Graph::ReleaseTexts(const std::vector<ObjectId>& keys) {
  if (keys.empty()) return Status::Ok();
  StoreTxn txn;
  VEXFS_RETURN_IF_ERROR(txn.Begin(rep_->store, /*write=*/true));
  for (const ObjectId& key : keys) {
    VEXFS_RETURN_IF_ERROR(txn.Delete(rep_->tables.texts, key.AsBytes()).status());
  }
  return txn.Commit();
}

namespace {

// Every text of the graph `source` reads, queued in `txn`.
Status QueueTextsOf(StoreTxn& txn, const Table& texts, const RecordSource& source) {
  GraphQuery all;
  all.read.include_invalid = true;
  all.read.include_retired = true;
  Status failed;
  VEXFS_RETURN_IF_ERROR(graph::VisitQueryNodes(source, all, NowNs(), [&](GraphNode& node) {
    if (node.text.empty()) return true;
    failed = txn.Put(texts, graph::PendingTextKey(node.text), node.text);
    return failed.ok();
  }));
  return failed;
}

}  // namespace

Status Graph::RequeueTexts() {
  if (IsReadOnly(rep_->store)) return Status::ReadOnly("graph: the store is open read-only");
  StoreTxn txn;
  VEXFS_RETURN_IF_ERROR(txn.Begin(rep_->store, /*write=*/false));
  VEXFS_ASSIGN_OR_RETURN(std::vector<BranchRef> branches, txn.Branches());
  txn.Abort();
  for (const BranchRef& branch : branches) {
    VEXFS_RETURN_IF_ERROR(txn.BeginOnBranch(rep_->store, /*write=*/true, branch.name));
    graph::WorkingGraph working(txn, rep_->tables);
    VEXFS_RETURN_IF_ERROR(QueueTextsOf(txn, rep_->tables.texts, graph::WorkingSource(working)));
    VEXFS_RETURN_IF_ERROR(txn.Commit());
  }
  // Texts only a snapshot still holds, each distinct graph once.
  VEXFS_ASSIGN_OR_RETURN(std::vector<CommitInfo> snapshots, rep_->store->ListSnapshots());
  std::set<ObjectId> roots;
  for (const CommitInfo& commit : snapshots) {
    auto it = commit.roots.find(graph::kGraphRootName);
    if (it != commit.roots.end()) roots.insert(it->second);
  }
  for (const ObjectId& root : roots) {
    VEXFS_RETURN_IF_ERROR(txn.Begin(rep_->store, /*write=*/true));
    VEXFS_ASSIGN_OR_RETURN(TrieRef top, Rep::TopOf(txn, root));
    VEXFS_RETURN_IF_ERROR(QueueTextsOf(txn, rep_->tables.texts, graph::SnapshotSource(txn, top)));
    VEXFS_RETURN_IF_ERROR(txn.Commit());
  }
  return Status::Ok();
}

// The records that differ between snapshot tree `other` and the working graph:
// those between `other` and the working graph's base, with every record
// written since the base compared afresh.
Status Graph::Rep::DiffWithWorking(
    StoreTxn& txn, const TrieRef& other,
    std::map<std::string, std::pair<std::optional<std::string>, std::optional<std::string>>>* out) {
  graph::WorkingGraph working(txn, tables);
  VEXFS_ASSIGN_OR_RETURN(std::optional<ObjectId> base, working.Base());
  TrieRef base_top;
  if (base) {
    VEXFS_ASSIGN_OR_RETURN(graph::GraphRoot root, graph::TrieReader(txn).ReadRoot(*base));
    base_top = root.top;
  }
  VEXFS_RETURN_IF_ERROR(graph::DiffTries(txn, other, base_top,
                                         [&](const std::string& key, const std::optional<std::string>& a,
                                             const std::optional<std::string>& b) {
                                           (*out)[key] = {a, b};
                                           return Status::Ok();
                                         }));
  VEXFS_ASSIGN_OR_RETURN(std::vector<std::string> dirty, working.DirtyKeys());
  graph::TrieReader reader(txn);
  for (const std::string& key : dirty) {
    VEXFS_ASSIGN_OR_RETURN(std::optional<std::string> a, reader.Lookup(other, key));
    VEXFS_ASSIGN_OR_RETURN(std::optional<std::string> b, working.GetRecord(key));
    if (a == b) {
      out->erase(key);
    } else {
      (*out)[key] = {std::move(a), std::move(b)};
    }
  }
  return Status::Ok();
}

Result<GraphDiff> Graph::Rep::Diff(std::string_view from, std::string_view to,
                                   std::string_view branch) {
  bool from_working = from == kWorking, to_working = to == kWorking;
  std::optional<ObjectId> root_a, root_b;
  if (!from_working) {
    VEXFS_ASSIGN_OR_RETURN(root_a, SnapshotRoot(from));
  }
  if (!to_working) {
    VEXFS_ASSIGN_OR_RETURN(root_b, SnapshotRoot(to));
  }
  StoreTxn txn;
  VEXFS_RETURN_IF_ERROR(txn.BeginOnBranch(store, /*write=*/false, branch));
  VEXFS_ASSIGN_OR_RETURN(TrieRef a, TopOf(txn, root_a));
  VEXFS_ASSIGN_OR_RETURN(TrieRef b, TopOf(txn, root_b));
  std::map<std::string, std::pair<std::optional<std::string>, std::optional<std::string>>> records;
  if (from_working != to_working) {
    VEXFS_RETURN_IF_ERROR(DiffWithWorking(txn, from_working ? b : a, &records));
    if (from_working) {
      for (auto& [key, sides] : records) std::swap(sides.first, sides.second);
    }
  } else if (!from_working) {
    VEXFS_RETURN_IF_ERROR(graph::DiffTries(txn, a, b,
                                           [&](const std::string& key, const std::optional<std::string>& x,
                                               const std::optional<std::string>& y) {
                                             records[key] = {x, y};
                                             return Status::Ok();
                                           }));
  }
  // Superseded facts are read as the newer graph has them.
  graph::WorkingGraph working(txn, tables);
  graph::WorkingSource working_source(working);
  graph::SnapshotSource snapshot_source(txn, to_working ? TrieRef{} : b);
  const RecordSource& newer = to_working ? static_cast<const RecordSource&>(working_source)
                                         : static_cast<const RecordSource&>(snapshot_source);
  graph::GraphDiffBuilder builder(newer);
  for (const auto& [key, sides] : records) VEXFS_RETURN_IF_ERROR(builder.Add(key, sides.first, sides.second));
  return builder.Finish();
}

}  // namespace vexfs
