// Reading the graph's hash tree in place (trie_read.h).
#include "graph/trie/trie_read.h"

#include <algorithm>

namespace vexfs::graph {

Result<GraphRoot> TrieReader::ReadRoot(const ObjectId& root) const {
  VEXFS_ASSIGN_OR_RETURN(StoredNode node, txn_.GetNode(root));
  GraphRoot out;
  VEXFS_RETURN_IF_ERROR(DecodeRoot(node, &out));
  return out;
}

Result<std::vector<Record>> TrieReader::ReadLeaf(const ObjectId& id) const {
  VEXFS_ASSIGN_OR_RETURN(std::string bytes, txn_.GetBlob(id));
  std::vector<Record> records;
  VEXFS_RETURN_IF_ERROR(DecodeLeaf(bytes, &records));
  return records;
}

Result<TrieInner> TrieReader::ReadInner(const TrieRef& ref, uint32_t depth) const {
  VEXFS_ASSIGN_OR_RETURN(StoredNode node, txn_.GetNode(ref.id));
  TrieInner inner;
  VEXFS_RETURN_IF_ERROR(DecodeInner(node, &inner));
  if (inner.depth != depth) return Status::Corruption("graph tree: an inner node is at the wrong depth");
  if (inner.label_bits != ref.label_bits) {
    return Status::Corruption("graph tree: an inner node is of another format than its parent");
  }
  return inner;
}

Result<std::optional<std::string>> TrieReader::Lookup(const TrieRef& top,
                                                      std::string_view key) const {
  if (top.count == 0) return std::optional<std::string>();
  TrieRef ref = top;
  for (uint32_t depth = 0; !ref.leaf; ++depth) {
    VEXFS_ASSIGN_OR_RETURN(TrieInner inner, ReadInner(ref, depth));
    if (depth >= LabelCount(key, inner.label_bits)) return std::optional<std::string>();
    uint8_t label = LabelAt(key, depth, inner.label_bits);
    auto it = std::find_if(inner.children.begin(), inner.children.end(),
                           [&](const TrieChild& c) { return c.label == label; });
    if (it == inner.children.end()) return std::optional<std::string>();
    ref = it->ref;
  }
  VEXFS_ASSIGN_OR_RETURN(std::vector<Record> records, ReadLeaf(ref.id));
  auto it = std::lower_bound(records.begin(), records.end(), key,
                             [](const Record& r, std::string_view k) { return r.first < k; });
  if (it == records.end() || it->first != key) return std::optional<std::string>();
  return std::optional<std::string>(std::move(it->second));
}

Status TrieReader::Scan(const TrieRef& top, std::string_view prefix,
                        const RecordVisitor& visit) const {
  if (top.count == 0) return Status::Ok();
  return ScanFrom(top, 0, prefix, visit).status();
}

Result<bool> TrieReader::ScanFrom(const TrieRef& ref, uint32_t depth, std::string_view prefix,
                                  const RecordVisitor& visit) const {
  if (ref.leaf) {
    VEXFS_ASSIGN_OR_RETURN(std::vector<Record> records, ReadLeaf(ref.id));
    for (const auto& [key, value] : records) {
      if (key.compare(0, prefix.size(), prefix) != 0) continue;
      VEXFS_ASSIGN_OR_RETURN(bool more, visit(key, value));
      if (!more) return false;
    }
    return true;
  }
  VEXFS_ASSIGN_OR_RETURN(TrieInner inner, ReadInner(ref, depth));
  // The prefix's labels narrow the walk to the one child under each.
  const size_t fixed = LabelCount(prefix, inner.label_bits);
  for (const TrieChild& child : inner.children) {
    if (depth < fixed && child.label != LabelAt(prefix, depth, inner.label_bits)) continue;
    VEXFS_ASSIGN_OR_RETURN(bool more, ScanFrom(child.ref, depth + 1, prefix, visit));
    if (!more) return false;
  }
  return true;
}

Status TrieReader::Collect(const TrieRef& ref, std::vector<Record>* out, uint32_t depth) const {
  if (ref.count == 0) return Status::Ok();
  if (ref.leaf) {
    VEXFS_ASSIGN_OR_RETURN(std::vector<Record> records, ReadLeaf(ref.id));
    if (records.size() != ref.count) {
      return Status::Corruption("graph tree: a leaf holds other than its parent counts");
    }
    for (Record& r : records) out->push_back(std::move(r));
    return Status::Ok();
  }
  // A hostile tree could otherwise lie about its size.
  VEXFS_ASSIGN_OR_RETURN(TrieInner inner, ReadInner(ref, depth));
  uint64_t total = 0;
  for (const TrieChild& child : inner.children) total += child.ref.count;
  if (total != ref.count) return Status::Corruption("graph tree: an inner node holds other than its parent counts");
  for (const TrieChild& child : inner.children) VEXFS_RETURN_IF_ERROR(Collect(child.ref, out, depth + 1));
  return Status::Ok();
}

}  // namespace vexfs::graph
