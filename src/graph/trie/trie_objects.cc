// Encoding and checked decoding of the graph's hash-tree objects (trie_objects.h).
#include "graph/trie/trie_objects.h"

#include "common/coding.h"
#include "vexfs/graph.h"

namespace vexfs::graph {
namespace {

constexpr std::string_view kLeafTag = "vexfs-graph-leaf-1";
// Format 2 splits on nibbles, format 1 on bytes (both are read; only 2 is
// written). The tags are of one length.
constexpr std::string_view kInnerTag = "vexfs-graph-inner-2";
constexpr std::string_view kByteInnerTag = "vexfs-graph-inner-1";
constexpr std::string_view kRootTag = "vexfs-graph-root-2";
constexpr std::string_view kByteRootTag = "vexfs-graph-root-1";
// Bounds a decoder holds stored bytes to: a record key is short, a value at most
// a node's text, properties and fields.
constexpr size_t kMaxKeyBytes = 256;
constexpr size_t kMaxValueBytes = kMaxGraphText + kMaxGraphProperties + 8 * kMaxGraphName;

Status Bad(std::string_view what) { return Status::Corruption("graph tree: " + std::string(what)); }

bool StartsWithTag(Decoder* dec, std::string_view tag) {
  std::string_view got;
  return dec->GetRaw(tag.size(), &got) && got == tag;
}

// The label bits of the format `dec` starts with (`tag` or `byte_tag`), 0 for
// neither.
uint8_t ReadFormat(Decoder* dec, std::string_view tag, std::string_view byte_tag) {
  std::string_view got;
  if (!dec->GetRaw(tag.size(), &got)) return 0;
  if (got == tag) return kLabelBits;
  return got == byte_tag ? kByteLabelBits : 0;
}

std::string_view InnerTag(uint8_t bits) { return bits == kByteLabelBits ? kByteInnerTag : kInnerTag; }

}  // namespace

std::string EncodeLeaf(const std::vector<Record>& records) {
  Encoder enc;
  enc.PutRaw(kLeafTag);
  enc.PutVarint(records.size());
  for (const auto& [key, value] : records) {
    enc.PutBytes(key);
    enc.PutBytes(value);
  }
  return enc.Take();
}

Status DecodeLeaf(std::string_view bytes, std::vector<Record>* out) {
  Decoder dec(bytes);
  uint64_t n = 0;
  if (!StartsWithTag(&dec, kLeafTag) || !dec.GetVarint(&n)) return Bad("a leaf has no header");
  if (n == 0 || n > kLeafMax) return Bad("a leaf holds " + std::to_string(n) + " records");
  out->clear();
  out->reserve(n);
  for (uint64_t i = 0; i < n; ++i) {
    std::string_view key, value;
    if (!dec.GetBytes(&key) || !dec.GetBytes(&value)) return Bad("a leaf is truncated");
    if (key.empty() || key.size() > kMaxKeyBytes || value.size() > kMaxValueBytes) {
      return Bad("a leaf record is past its bounds");
    }
    if (!out->empty() && out->back().first >= key) return Bad("a leaf's keys are out of order");
    out->emplace_back(std::string(key), std::string(value));
  }
  if (!dec.done()) return Bad("a leaf has trailing bytes");
  return Status::Ok();
}

StoredNode EncodeInner(const TrieInner& inner) {
  StoredNode node;
  Encoder enc;
  enc.PutRaw(InnerTag(inner.label_bits));
  enc.PutVarint(inner.depth);
  enc.PutVarint(inner.children.size());
  for (const TrieChild& child : inner.children) {
    enc.PutU8(child.label);
    enc.PutU8(child.ref.leaf ? 1 : 0);
    enc.PutVarint(child.ref.count);
    node.refs.push_back(child.ref.id);
  }
  node.data = enc.Take();
  return node;
}

Status DecodeInner(const StoredNode& node, TrieInner* out) {
  Decoder dec(node.data);
  uint64_t depth = 0, n = 0;
  uint8_t bits = ReadFormat(&dec, kInnerTag, kByteInnerTag);
  if (bits == 0 || !dec.GetVarint(&depth) || !dec.GetVarint(&n)) {
    return Bad("an inner node has no header");
  }
  if (depth >= kMaxTrieDepth) return Bad("an inner node is too deep");
  const uint64_t labels = uint64_t{1} << bits;
  if (n == 0 || n > labels || n != node.refs.size()) return Bad("an inner node's children do not match its references");
  out->depth = static_cast<uint32_t>(depth);
  out->label_bits = bits;
  out->children.assign(n, TrieChild());
  uint64_t total = 0;
  for (uint64_t i = 0; i < n; ++i) {
    TrieChild& child = out->children[i];
    uint8_t leaf = 0;
    if (!dec.GetU8(&child.label) || !dec.GetU8(&leaf) || !dec.GetVarint(&child.ref.count)) {
      return Bad("an inner node is truncated");
    }
    // Canonical shape: a child of at most kLeafMax records is a leaf, a larger one is not.
    if (leaf > 1 || child.ref.count == 0 || (leaf == 1) != (child.ref.count <= kLeafMax)) {
      return Bad("an inner node has a bad child");
    }
    if (child.ref.count > UINT64_MAX - total) return Bad("an inner node's counts overflow");
    if (child.label >= labels) return Bad("an inner node has a label past its format's");
    if (i > 0 && out->children[i - 1].label >= child.label) {
      return Bad("an inner node's children are out of order");
    }
    child.ref.leaf = leaf == 1;
    child.ref.label_bits = bits;
    child.ref.id = node.refs[i];
    total += child.ref.count;
  }
  if (total <= kLeafMax) return Bad("an inner node holds records one leaf would");
  if (!dec.done()) return Bad("an inner node has trailing bytes");
  return Status::Ok();
}

StoredNode EncodeRoot(const GraphRoot& root) {
  StoredNode node;
  Encoder enc;
  enc.PutRaw(root.top.label_bits == kByteLabelBits ? kByteRootTag : kRootTag);
  enc.PutU8(root.top.leaf ? 1 : 0);
  enc.PutVarint(root.top.count);
  node.data = enc.Take();
  if (root.top.count > 0) node.refs.push_back(root.top.id);
  return node;
}

Status DecodeRoot(const StoredNode& node, GraphRoot* out) {
  Decoder dec(node.data);
  uint8_t leaf = 0;
  uint64_t count = 0;
  uint8_t bits = ReadFormat(&dec, kRootTag, kByteRootTag);
  if (bits == 0 || !dec.GetU8(&leaf) || !dec.GetVarint(&count) || !dec.done() || leaf > 1) {
    return Bad("the root is not a graph root");
  }
  if (node.refs.size() != (count > 0 ? 1u : 0u)) return Bad("the root's reference does not match its count");
  if (leaf == 1 && count > kLeafMax) return Bad("the root's leaf holds too many records");
  if (leaf == 0 && count > 0 && count <= kLeafMax) return Bad("the root's inner node holds too few records");
  out->top = TrieRef{count > 0 ? node.refs[0] : ObjectId(), leaf == 1, count, bits};
  return Status::Ok();
}

}  // namespace vexfs::graph
