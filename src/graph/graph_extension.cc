// The graph's store hooks: snapshot roots, restores, gc roots, fsck (graph_extension.h).
#include "graph/graph_extension.h"

#include "graph/records.h"
#include "graph/trie/trie_read.h"
#include "graph/trie/trie_write.h"

namespace vexfs::graph {
namespace {

constexpr size_t kBranchPrefixSize = 4;

}  // namespace

Status GraphExtension::AddGcRoots(const StoreTxn& txn, std::vector<ObjectId>* roots) {
  VEXFS_ASSIGN_OR_RETURN(auto rows, txn.Scan(tables_.base, ""));
  for (const auto& [key, value] : rows) {
    if (value.size() != 32) return Status::Corruption("graph: a branch's base root is malformed");
    roots->push_back(ObjectId::FromBytes(value));
  }
  return Status::Ok();
}

Result<std::optional<ObjectId>> GraphExtension::SnapshotRoot(StoreTxn& txn) {
  WorkingGraph graph(txn, tables_);
  VEXFS_ASSIGN_OR_RETURN(std::optional<ObjectId> base, graph.Base());
  VEXFS_ASSIGN_OR_RETURN(std::vector<std::string> dirty, graph.DirtyKeys());
  if (dirty.empty()) return base;
  TrieRef top;
  if (base) {
    VEXFS_ASSIGN_OR_RETURN(GraphRoot root, TrieReader(txn).ReadRoot(*base));
    top = root.top;
  }
  std::vector<RecordChange> changes;
  changes.reserve(dirty.size());
  for (std::string& key : dirty) {
    VEXFS_ASSIGN_OR_RETURN(std::optional<std::string> value, graph.GetRecord(key));
    changes.push_back(RecordChange{std::move(key), std::move(value)});
  }
  VEXFS_ASSIGN_OR_RETURN(TrieRef applied, ApplyToTrie(txn, top, changes));
  std::optional<ObjectId> root;
  if (applied.count > 0) {
    VEXFS_ASSIGN_OR_RETURN(root, WriteRoot(txn, applied));
  }
  VEXFS_RETURN_IF_ERROR(graph.SetBase(root));
  VEXFS_RETURN_IF_ERROR(graph.ClearDirty());
  return root;
}

// The branch's tables were emptied with its working tree: load the snapshot's
// records and make its root the base, with nothing dirty.
Status GraphExtension::RestoreRoot(StoreTxn& txn, const std::optional<ObjectId>& root) {
  WorkingGraph graph(txn, tables_);
  VEXFS_RETURN_IF_ERROR(graph.ClearDirty());
  VEXFS_RETURN_IF_ERROR(graph.SetBase(root));
  if (!root) return Status::Ok();
  TrieReader reader(txn);
  VEXFS_ASSIGN_OR_RETURN(GraphRoot decoded, reader.ReadRoot(*root));
  std::vector<Record> records;
  VEXFS_RETURN_IF_ERROR(reader.Collect(decoded.top, &records));
  for (const auto& [key, value] : records) VEXFS_RETURN_IF_ERROR(graph.LoadRecord(key, value));
  return Status::Ok();
}

Status GraphExtension::CheckRecord(const StoreTxn& txn, const std::string& key,
                                   const std::string& value, FsckReport* report) {
  std::string_view branch_key = std::string_view(key).substr(kBranchPrefixSize);
  RecordKey parsed;
  Status st = ParseRecordKey(branch_key, &parsed);
  if (st.ok() && parsed.type == RecordType::kNode) {
    GraphNode node;
    st = DecodeNode(parsed.owner, value, &node);
  } else if (st.ok() && parsed.type == RecordType::kOutEdge) {
    GraphEdge edge;
    st = DecodeEdge(parsed, value, &edge);
    if (st.ok()) {
      std::string prefix = key.substr(0, kBranchPrefixSize);
      for (const GraphId& end : {edge.from, edge.to}) {
        VEXFS_ASSIGN_OR_RETURN(auto found, txn.Get(tables_.records, prefix + NodeKey(end)));
        if (!found) report->problems.push_back("graph: edge " + edge.id.ToHex() + " names node " +
                                               end.ToHex() + ", which does not exist");
      }
      VEXFS_ASSIGN_OR_RETURN(auto mirror, txn.Get(tables_.records, prefix + InEdgeKey(edge)));
      if (!mirror) report->problems.push_back("graph: edge " + edge.id.ToHex() + " has no in-edge record");
    }
  }
  if (st.ok() && parsed.type == RecordType::kInEdge) {
    GraphEdge mirror{.id = parsed.edge, .kind = parsed.kind, .from = parsed.other, .to = parsed.owner};
    VEXFS_ASSIGN_OR_RETURN(auto out, txn.Get(tables_.records, key.substr(0, kBranchPrefixSize) + OutEdgeKey(mirror)));
    if (!out) report->problems.push_back("graph: in-edge of edge " + parsed.edge.ToHex() + " has no edge");
  }
  if (!st.ok()) report->problems.push_back(st.message());
  return Status::Ok();
}

Status GraphExtension::Check(const StoreTxn& txn, FsckReport* report) {
  TableCursor cursor;
  VEXFS_RETURN_IF_ERROR(cursor.Open(txn, tables_.records));
  VEXFS_ASSIGN_OR_RETURN(bool more, cursor.First());
  while (more) {
    if (cursor.key().size() <= kBranchPrefixSize) {
      report->problems.push_back("graph: a record key is too short");
    } else {
      VEXFS_RETURN_IF_ERROR(CheckRecord(txn, std::string(cursor.key()), std::string(cursor.value()), report));
    }
    VEXFS_ASSIGN_OR_RETURN(more, cursor.Next());
  }
  VEXFS_ASSIGN_OR_RETURN(auto bases, txn.Scan(tables_.base, ""));
  for (const auto& [key, value] : bases) {
    if (value.size() != 32) {
      report->problems.push_back("graph: a branch's base root is malformed");
      continue;
    }
    Result<GraphRoot> root = TrieReader(txn).ReadRoot(ObjectId::FromBytes(value));
    if (!root.ok()) report->problems.push_back("graph: a branch's base root: " + root.status().message());
  }
  return CheckQueuedTexts(txn, report);
}

// A queued text is named by its hash: a damaged one would index wrong words.
Status GraphExtension::CheckQueuedTexts(const StoreTxn& txn, FsckReport* report) {
  if (tables_.texts.absent()) return Status::Ok();
  TableCursor cursor;
  VEXFS_RETURN_IF_ERROR(cursor.Open(txn, tables_.texts));
  VEXFS_ASSIGN_OR_RETURN(bool more, cursor.First());
  while (more) {
    if (cursor.key() != kTextsQueuedMarker && cursor.key() != PendingTextKey(cursor.value())) {
      report->problems.push_back("graph: a text queued for search does not match its hash");
    }
    VEXFS_ASSIGN_OR_RETURN(more, cursor.Next());
  }
  return Status::Ok();
}

}  // namespace vexfs::graph
