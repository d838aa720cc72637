// Writing a snapshot's graph: a hash tree built from records, or an earlier
// tree with a few records changed. A change rewrites only the leaves it lands
// in and the inner nodes above them, so a snapshot after ten changes writes
// about thirty objects whether the graph holds ten thousand records or ten
// million; the result is the same tree a build from scratch would make.
#ifndef VEXFS_GRAPH_TRIE_TRIE_WRITE_H_
#define VEXFS_GRAPH_TRIE_TRIE_WRITE_H_

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "graph/trie/trie_objects.h"
#include "vexfs/extension.h"

namespace vexfs::graph {

// A record to set (value) or to remove (nullopt).
struct RecordChange {
  std::string key{};
  std::optional<std::string> value{};
};

// The tree of `records` (sorted by key, keys unique); count 0 for none.
Result<TrieRef> BuildTrie(StoreTxn& txn, std::span<const Record> records);
// `top` with `changes` (sorted by key, keys unique) applied.
Result<TrieRef> ApplyToTrie(StoreTxn& txn, const TrieRef& top,
                            std::span<const RecordChange> changes);
// Stores the snapshot root of the tree `top`.
Result<ObjectId> WriteRoot(StoreTxn& txn, const TrieRef& top);

}  // namespace vexfs::graph

#endif  // VEXFS_GRAPH_TRIE_TRIE_WRITE_H_
