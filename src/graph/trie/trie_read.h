// Reading a snapshot's graph in place: a record by key, the records under a key
// prefix, and whole subtrees, straight from the hash tree's objects.
#ifndef VEXFS_GRAPH_TRIE_TRIE_READ_H_
#define VEXFS_GRAPH_TRIE_TRIE_READ_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/trie/trie_objects.h"
#include "vexfs/extension.h"

namespace vexfs::graph {

// Called per record in key order; false stops the walk.
using RecordVisitor = std::function<Result<bool>(std::string_view key, std::string_view value)>;

class TrieReader {
 public:
  // `txn` (read or write) must outlive the reader.
  explicit TrieReader(const StoreTxn& txn) : txn_(txn) {}

  Result<GraphRoot> ReadRoot(const ObjectId& root) const;
  Result<std::vector<Record>> ReadLeaf(const ObjectId& id) const;
  // The inner node `ref` names, which must sit at `depth` of a tree of
  // ref.label_bits (kCorruption otherwise: a hostile tree could nest without
  // end or mix formats).
  Result<TrieInner> ReadInner(const TrieRef& ref, uint32_t depth) const;

  // The value under `key`, nullopt if the tree has none.
  Result<std::optional<std::string>> Lookup(const TrieRef& top, std::string_view key) const;
  // Every record whose key begins with `prefix`, in key order: descends by the
  // prefix's bytes, so a node's records cost the tree's depth.
  Status Scan(const TrieRef& top, std::string_view prefix, const RecordVisitor& visit) const;
  // Every record of a subtree at `depth` (0: the top), appended in key order.
  // kCorruption for a node at another depth or whose counts do not add up.
  Status Collect(const TrieRef& ref, std::vector<Record>* out, uint32_t depth = 0) const;

 private:
  Result<bool> ScanFrom(const TrieRef& ref, uint32_t depth, std::string_view prefix,
                        const RecordVisitor& visit) const;
  const StoreTxn& txn_;
};

}  // namespace vexfs::graph

#endif  // VEXFS_GRAPH_TRIE_TRIE_READ_H_
