// Building and changing the graph's hash tree (trie_write.h). Both keep the one
// rule that makes the shape canonical: a subtree of at most kLeafMax records is
// a leaf, a larger one an inner node splitting on the key byte at its depth.
#include "graph/trie/trie_write.h"

#include "graph/trie/trie_read.h"

namespace vexfs::graph {
namespace {

Status TooShort() {
  return Status::Corruption("graph tree: two records share a key, or one key prefixes another");
}

Result<TrieRef> Build(StoreTxn& txn, std::span<const Record> records, uint32_t depth) {
  if (records.empty()) return TrieRef{};
  if (records.size() <= kLeafMax) {
    VEXFS_ASSIGN_OR_RETURN(ObjectId id,
                           txn.PutBlob(EncodeLeaf({records.begin(), records.end()})));
    return TrieRef{id, true, records.size()};
  }
  if (depth >= kMaxTrieDepth) return TooShort();
  TrieInner inner;
  inner.depth = depth;
  size_t begin = 0;
  while (begin < records.size()) {
    if (records[begin].first.size() <= depth) return TooShort();
    auto label = static_cast<uint8_t>(records[begin].first[depth]);
    size_t end = begin + 1;
    while (end < records.size() && records[end].first.size() > depth &&
           static_cast<uint8_t>(records[end].first[depth]) == label) {
      ++end;
    }
    VEXFS_ASSIGN_OR_RETURN(TrieRef child, Build(txn, records.subspan(begin, end - begin), depth + 1));
    inner.children.push_back(TrieChild{label, child});
    begin = end;
  }
  VEXFS_ASSIGN_OR_RETURN(ObjectId id, txn.PutNode(EncodeInner(inner)));
  return TrieRef{id, false, records.size()};
}

// A leaf's records with `changes` merged in.
std::vector<Record> Merge(std::vector<Record> records, std::span<const RecordChange> changes) {
  std::vector<Record> out;
  out.reserve(records.size() + changes.size());
  size_t i = 0;
  for (const RecordChange& change : changes) {
    while (i < records.size() && records[i].first < change.key) out.push_back(std::move(records[i++]));
    if (i < records.size() && records[i].first == change.key) ++i;
    if (change.value) out.emplace_back(change.key, *change.value);
  }
  while (i < records.size()) out.push_back(std::move(records[i++]));
  return out;
}

Result<TrieRef> Apply(StoreTxn& txn, const TrieRef& ref, std::span<const RecordChange> changes,
                      uint32_t depth);

// The children of `inner` with the changes under each applied.
Result<std::vector<TrieChild>> ApplyToChildren(StoreTxn& txn, const TrieInner& inner,
                                               std::span<const RecordChange> changes) {
  std::vector<TrieChild> out;
  size_t c = 0, begin = 0;
  uint32_t depth = inner.depth;
  while (c < inner.children.size() || begin < changes.size()) {
    if (begin < changes.size() && changes[begin].key.size() <= depth) return TooShort();
    int change_label = begin < changes.size() ? static_cast<uint8_t>(changes[begin].key[depth]) : 256;
    int child_label = c < inner.children.size() ? inner.children[c].label : 256;
    if (child_label < change_label) {
      out.push_back(inner.children[c++]);
      continue;
    }
    size_t end = begin;
    while (end < changes.size() && changes[end].key.size() > depth &&
           static_cast<uint8_t>(changes[end].key[depth]) == change_label) {
      ++end;
    }
    TrieRef child = child_label == change_label ? inner.children[c++].ref : TrieRef{};
    VEXFS_ASSIGN_OR_RETURN(TrieRef applied,
                           Apply(txn, child, changes.subspan(begin, end - begin), depth + 1));
    if (applied.count > 0) out.push_back(TrieChild{static_cast<uint8_t>(change_label), applied});
    begin = end;
  }
  return out;
}

Result<TrieRef> ApplyToInner(StoreTxn& txn, const TrieRef& ref,
                             std::span<const RecordChange> changes, uint32_t depth) {
  TrieReader reader(txn);
  VEXFS_ASSIGN_OR_RETURN(TrieInner inner, reader.ReadInner(ref.id));
  if (inner.depth != depth) return Status::Corruption("graph tree: an inner node is at the wrong depth");
  VEXFS_ASSIGN_OR_RETURN(inner.children, ApplyToChildren(txn, inner, changes));
  uint64_t count = 0;
  for (const TrieChild& child : inner.children) count += child.ref.count;
  if (count > kLeafMax) {
    VEXFS_ASSIGN_OR_RETURN(ObjectId id, txn.PutNode(EncodeInner(inner)));
    return TrieRef{id, false, count};
  }
  // Shrunk to a leaf's size: the canonical shape is one leaf.
  std::vector<Record> records;
  for (const TrieChild& child : inner.children) {
    VEXFS_RETURN_IF_ERROR(reader.Collect(child.ref, &records, depth + 1));
  }
  return Build(txn, records, depth);
}

Result<TrieRef> Apply(StoreTxn& txn, const TrieRef& ref, std::span<const RecordChange> changes,
                      uint32_t depth) {
  if (changes.empty()) return ref;
  if (ref.count > 0 && !ref.leaf) return ApplyToInner(txn, ref, changes, depth);
  std::vector<Record> records;
  if (ref.count > 0) VEXFS_RETURN_IF_ERROR(TrieReader(txn).Collect(ref, &records, depth));
  std::vector<Record> merged = Merge(std::move(records), changes);
  return Build(txn, merged, depth);
}

}  // namespace

Result<TrieRef> BuildTrie(StoreTxn& txn, std::span<const Record> records) {
  return Build(txn, records, 0);
}

Result<TrieRef> ApplyToTrie(StoreTxn& txn, const TrieRef& top,
                            std::span<const RecordChange> changes) {
  return Apply(txn, top, changes, 0);
}

Result<ObjectId> WriteRoot(StoreTxn& txn, const TrieRef& top) {
  return txn.PutNode(EncodeRoot(GraphRoot{top}));
}

}  // namespace vexfs::graph
