// The objects of a snapshot's graph: a hash tree over the graph's record keys
// (docs/graph.md, "Snapshot root"). Its shape depends only on the records it
// holds, never on the order they were written in: a subtree of at most
// kLeafMax records is one leaf, a larger one an inner node that splits its
// records on the key byte at its depth. So equal graphs have equal root ids,
// and equal subtrees equal ids, which is what lets a diff skip them.
//
// Leaves are blobs; inner nodes are store nodes whose references are their
// children, so gc keeps a whole tree alive through its root. Decoders check
// every field: these bytes come from the store, and through bundles from
// elsewhere.
#ifndef VEXFS_GRAPH_TRIE_TRIE_OBJECTS_H_
#define VEXFS_GRAPH_TRIE_TRIE_OBJECTS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "vexfs/extension.h"
#include "vexfs/status.h"
#include "vexfs/types.h"

namespace vexfs::graph {

// Records per leaf at most: a leaf rewritten for one change stays small, and a
// tree of 7 million records is three inner levels deep.
constexpr size_t kLeafMax = 64;
// Key bytes a tree may split on: record keys are shorter than this.
constexpr size_t kMaxTrieDepth = 512;

using Record = std::pair<std::string, std::string>;

// A reference to a subtree, as its parent holds it.
struct TrieRef {
  ObjectId id{};
  bool leaf = true;
  uint64_t count = 0;  // records below
  friend bool operator==(const TrieRef&, const TrieRef&) = default;
};

struct TrieChild {
  uint8_t label = 0;  // the key byte at the parent's depth
  TrieRef ref{};
};

struct TrieInner {
  uint32_t depth = 0;
  std::vector<TrieChild> children{};  // by label, ascending
};

// The snapshot root: the format marker and the tree's top.
struct GraphRoot {
  TrieRef top{};  // count 0: an empty graph (then id is zero)
};

std::string EncodeLeaf(const std::vector<Record>& records);
Status DecodeLeaf(std::string_view bytes, std::vector<Record>* out);
StoredNode EncodeInner(const TrieInner& inner);
Status DecodeInner(const StoredNode& node, TrieInner* out);
StoredNode EncodeRoot(const GraphRoot& root);
Status DecodeRoot(const StoredNode& node, GraphRoot* out);

}  // namespace vexfs::graph

#endif  // VEXFS_GRAPH_TRIE_TRIE_OBJECTS_H_
