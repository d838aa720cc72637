// The records that differ between two of the graph's hash trees. Subtrees with
// equal ids are equal and skipped unread, so the cost follows the size of the
// difference (times the tree's depth), not the size of the graphs.
#ifndef VEXFS_GRAPH_TRIE_TRIE_DIFF_H_
#define VEXFS_GRAPH_TRIE_TRIE_DIFF_H_

#include <functional>
#include <optional>
#include <string>

#include "graph/trie/trie_objects.h"
#include "vexfs/extension.h"

namespace vexfs::graph {

// One record that differs: its value in the older and in the newer tree
// (nullopt where that tree lacks it). Called in key order.
using RecordDiffVisitor = std::function<Status(const std::string& key,
                                               const std::optional<std::string>& older,
                                               const std::optional<std::string>& newer)>;

Status DiffTries(const StoreTxn& txn, const TrieRef& older, const TrieRef& newer,
                 const RecordDiffVisitor& visit);

}  // namespace vexfs::graph

#endif  // VEXFS_GRAPH_TRIE_TRIE_DIFF_H_
