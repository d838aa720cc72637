// The objects of a snapshot's graph: a hash tree over the graph's record keys
// (docs/graph.md, "Snapshot root"). Its shape depends only on the records it
// holds, never on the order they were written in: a subtree of at most
// kLeafMax records is one leaf, a larger one an inner node that splits its
// records on the key's label (4 bits, a nibble) at its depth. So equal graphs
// have equal root ids, and equal subtrees equal ids, which is what lets a diff
// skip them.
//
// Leaves are blobs; inner nodes are store nodes whose references are their
// children, so gc keeps a whole tree alive through its root. Decoders check
// every field: these bytes come from the store, and through bundles from
// elsewhere.
#ifndef VEXFS_GRAPH_TRIE_TRIE_OBJECTS_H_
#define VEXFS_GRAPH_TRIE_TRIE_OBJECTS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vexfs/extension.h"
#include "vexfs/status.h"
#include "vexfs/types.h"

namespace vexfs::graph {

// Records per leaf at most: a leaf rewritten for one change stays small.
constexpr size_t kLeafMax = 64;
// Labels a tree may split on: record keys are shorter than this.
constexpr size_t kMaxTrieDepth = 512;

// Bits of the key one level splits on. Trees written now split on nibbles: a
// change rewrites inner nodes of at most 16 references (under 1 KiB each)
// rather than 256 (8 KiB), for one more level per 16 times the records; at a
// million nodes that is a few times fewer bytes per snapshot (BENCHMARKS.md).
// Trees of root format 1 split on whole bytes; they are still read, and a
// change to one is written as a nibble tree.
constexpr uint8_t kLabelBits = 4;
constexpr uint8_t kByteLabelBits = 8;

// How many labels of `bits` bits `key` has.
inline size_t LabelCount(std::string_view key, uint8_t bits) { return key.size() * 8 / bits; }
// The label at `depth` (< LabelCount): a byte, or a nibble, high one first, so
// labels ascend in key order.
inline uint8_t LabelAt(std::string_view key, uint32_t depth, uint8_t bits) {
  if (bits == kByteLabelBits) return static_cast<uint8_t>(key[depth]);
  auto byte = static_cast<uint8_t>(key[depth / 2]);
  return depth % 2 == 0 ? byte >> 4 : byte & 0x0F;
}

using Record = std::pair<std::string, std::string>;

// A reference to a subtree, as its parent holds it.
struct TrieRef {
  ObjectId id{};
  bool leaf = true;
  uint64_t count = 0;  // records below
  uint8_t label_bits = kLabelBits;  // the tree's: a child's are its parent's
  friend bool operator==(const TrieRef&, const TrieRef&) = default;
};

struct TrieChild {
  uint8_t label = 0;  // the key's label at the parent's depth
  TrieRef ref{};
};

struct TrieInner {
  uint32_t depth = 0;
  std::vector<TrieChild> children{};  // by label, ascending
  uint8_t label_bits = kLabelBits;
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
