// The graph record fuzzer's checks and seeds (graph_records_fuzz_body.h).
#include "fuzz/graph_records_fuzz_body.h"

#include "graph/records.h"
#include "graph/trie/trie_objects.h"

namespace vexfs::graph::fuzz {
namespace {

enum Decoder : uint8_t { kKey = 0, kNode, kEdge, kLeaf, kInner, kRoot, kDecoders };

// A refusal must be a corruption with a message.
std::string Refusal(const Status& st, const char* what) {
  if (st.code() != StatusCode::kCorruption || st.message().empty()) {
    return std::string(what) + " refused with " + st.ToString();
  }
  return "";
}

RecordKey EdgeKeyForFuzz() {
  RecordKey key;
  key.type = RecordType::kOutEdge;
  key.owner = GraphIdForKey("from");
  key.other = GraphIdForKey("to");
  key.edge = GraphIdForKey("edge");
  key.kind = "mentions";
  return key;
}

std::string CheckKey(std::string_view in) {
  RecordKey key;
  Status st = ParseRecordKey(in, &key);
  if (!st.ok()) return Refusal(st, "a record key");
  std::string again = key.type == RecordType::kNode ? NodeKey(key.owner)
                      : key.type == RecordType::kOutEdge
                          ? OutEdgeKey(GraphEdge{.id = key.edge, .kind = key.kind, .from = key.owner, .to = key.other})
                          : InEdgeKey(GraphEdge{.id = key.edge, .kind = key.kind, .from = key.other, .to = key.owner});
  return again == in ? "" : "a record key does not encode back to itself";
}

std::string CheckNode(std::string_view in) {
  GraphNode node;
  GraphId id = GraphIdForKey("node");
  Status st = DecodeNode(id, in, &node);
  if (!st.ok()) return Refusal(st, "a node");
  GraphNode again;
  if (!DecodeNode(id, EncodeNode(node), &again).ok() || !(again == node)) {
    return "a node does not survive encoding";
  }
  return "";
}

std::string CheckEdge(std::string_view in) {
  GraphEdge edge;
  RecordKey key = EdgeKeyForFuzz();
  Status st = DecodeEdge(key, in, &edge);
  if (!st.ok()) return Refusal(st, "an edge");
  GraphEdge again;
  if (!DecodeEdge(key, EncodeEdge(edge), &again).ok() || !(again == edge)) {
    return "an edge does not survive encoding";
  }
  return "";
}

std::string CheckLeaf(std::string_view in) {
  std::vector<Record> records;
  Status st = DecodeLeaf(in, &records);
  if (!st.ok()) return Refusal(st, "a leaf");
  std::vector<Record> again;
  if (!DecodeLeaf(EncodeLeaf(records), &again).ok() || again != records) {
    return "a leaf does not survive encoding";
  }
  return "";
}

// Splits an inner node's or root's input into a stored node: a count of
// references, taken 32 bytes each from the end, and the data before them.
bool ToStoredNode(std::string_view in, StoredNode* node) {
  if (in.empty()) return false;
  size_t refs = static_cast<uint8_t>(in[0]);
  in.remove_prefix(1);
  if (refs * 32 > in.size()) return false;
  for (size_t i = 0; i < refs; ++i) {
    node->refs.push_back(ObjectId::FromBytes(in.substr(in.size() - 32 * (refs - i), 32)));
  }
  node->data = std::string(in.substr(0, in.size() - 32 * refs));
  return true;
}

std::string CheckInner(std::string_view in) {
  StoredNode node;
  if (!ToStoredNode(in, &node)) return "";
  TrieInner inner;
  Status st = DecodeInner(node, &inner);
  if (!st.ok()) return Refusal(st, "an inner node");
  TrieInner again;
  StoredNode encoded = EncodeInner(inner);
  if (!DecodeInner(encoded, &again).ok() || encoded.refs != node.refs) {
    return "an inner node does not survive encoding";
  }
  return "";
}

std::string CheckRoot(std::string_view in) {
  StoredNode node;
  if (!ToStoredNode(in, &node)) return "";
  GraphRoot root;
  Status st = DecodeRoot(node, &root);
  if (!st.ok()) return Refusal(st, "a root");
  GraphRoot again;
  if (!DecodeRoot(EncodeRoot(root), &again).ok() || !(again.top == root.top)) {
    return "a root does not survive encoding";
  }
  return "";
}

std::string WithRefs(char decoder, const StoredNode& node) {
  std::string out(1, decoder);
  out.push_back(static_cast<char>(node.refs.size()));
  out += node.data;
  for (const ObjectId& id : node.refs) out.append(id.AsBytes());
  return out;
}

}  // namespace

std::string CheckGraphRecord(std::string_view input) {
  if (input.empty()) return "";
  auto decoder = static_cast<uint8_t>(input[0]) % kDecoders;
  std::string_view rest = input.substr(1);
  switch (decoder) {
    case kKey: return CheckKey(rest);
    case kNode: return CheckNode(rest);
    case kEdge: return CheckEdge(rest);
    case kLeaf: return CheckLeaf(rest);
    case kInner: return CheckInner(rest);
    default: return CheckRoot(rest);
  }
}

bool GraphRecordDecodes(std::string_view input) {
  if (input.empty()) return false;
  std::string_view rest = input.substr(1);
  StoredNode node;
  switch (static_cast<uint8_t>(input[0]) % kDecoders) {
    case kKey: {
      RecordKey key;
      return ParseRecordKey(rest, &key).ok();
    }
    case kNode: {
      GraphNode n;
      return DecodeNode(GraphIdForKey("node"), rest, &n).ok();
    }
    case kEdge: {
      GraphEdge e;
      return DecodeEdge(EdgeKeyForFuzz(), rest, &e).ok();
    }
    case kLeaf: {
      std::vector<Record> records;
      return DecodeLeaf(rest, &records).ok();
    }
    case kInner: {
      TrieInner inner;
      return ToStoredNode(rest, &node) && DecodeInner(node, &inner).ok();
    }
    default: {
      GraphRoot root;
      return ToStoredNode(rest, &node) && DecodeRoot(node, &root).ok();
    }
  }
}

std::vector<std::string> GraphRecordSeeds() {
  GraphNode node{.kind = "turn", .text = "hello", .properties = R"({"a":1})", .thread = "t",
                 .key = "k", .source = "user"};
  node.times = GraphTimes{1, kGraphForever, 3, kGraphForever};
  node.span = KvSpan{.cache = "c", .start = 0, .end = 4, .cache_tokens = 8, .tokens_hash = "ff"};
  GraphEdge edge{.id = GraphIdForKey("edge"), .kind = "mentions", .from = GraphIdForKey("from"),
                 .to = GraphIdForKey("to"), .properties = "{}"};
  std::vector<Record> records = {{NodeKey(GraphIdForKey("a")), EncodeNode(node)},
                                 {OutEdgeKey(edge), EncodeEdge(edge)}};
  TrieInner inner{.depth = 0};
  for (uint8_t label : {3, 9}) {
    inner.children.push_back(TrieChild{label, TrieRef{ObjectId(), true, 40}});
  }
  return {
      std::string(1, kKey) + NodeKey(GraphIdForKey("a")),
      std::string(1, kKey) + OutEdgeKey(edge),
      std::string(1, kKey) + InEdgeKey(edge),
      std::string(1, kNode) + EncodeNode(node),
      std::string(1, kEdge) + EncodeEdge(edge),
      std::string(1, kLeaf) + EncodeLeaf(records),
      WithRefs(kInner, EncodeInner(inner)),
      WithRefs(kRoot, EncodeRoot(GraphRoot{TrieRef{ObjectId(), true, 2}})),
  };
}

}  // namespace vexfs::graph::fuzz
