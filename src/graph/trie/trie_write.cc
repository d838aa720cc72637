// Building and changing the graph's hash tree (trie_write.h). Both keep the one
// rule that makes the shape canonical: a subtree of at most kLeafMax records is
// a leaf, a larger one an inner node splitting on the key's label at its depth.
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
  auto has_label = [&](const Record& r) { return depth < LabelCount(r.first, kLabelBits); };
  size_t begin = 0;
  while (begin < records.size()) {
    if (!has_label(records[begin])) return TooShort();
    uint8_t label = LabelAt(records[begin].first, depth, kLabelBits);
    size_t end = begin + 1;
    while (end < records.size() && has_label(records[end]) &&
           LabelAt(records[end].first, depth, kLabelBits) == label) {
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
  const uint32_t depth = inner.depth;
  const uint8_t bits = inner.label_bits;
  auto has_label = [&](const RecordChange& change) { return depth < LabelCount(change.key, bits); };
  while (c < inner.children.size() || begin < changes.size()) {
    if (begin < changes.size() && !has_label(changes[begin])) return TooShort();
    int change_label = begin < changes.size() ? LabelAt(changes[begin].key, depth, bits) : 256;
    int child_label = c < inner.children.size() ? inner.children[c].label : 256;
    if (child_label < change_label) {
      out.push_back(inner.children[c++]);
      continue;
    }
    size_t end = begin;
    while (end < changes.size() && has_label(changes[end]) &&
           LabelAt(changes[end].key, depth, bits) == change_label) {
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
  VEXFS_ASSIGN_OR_RETURN(TrieInner inner, reader.ReadInner(ref, depth));
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
  if (ref.count > 0 && !ref.leaf && ref.label_bits == kLabelBits) {
    return ApplyToInner(txn, ref, changes, depth);
  }
  // A leaf, or a tree of byte labels (root format 1, only ever at the top):
  // rebuilt whole, in today's format.
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
