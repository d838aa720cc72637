// Keys and values of the graph's records (records.h).
#include "graph/records.h"

#include "common/coding.h"

namespace vexfs::graph {
namespace {

constexpr uint8_t kNodeFormat = 1;
constexpr uint8_t kEdgeFormat = 1;
constexpr size_t kIdSize = 16;

Status Bad(std::string_view what) { return Status::Corruption("graph record: " + std::string(what)); }

void PutTimes(Encoder* enc, const GraphTimes& t) {
  enc->PutSignedVarint(t.valid_from);
  enc->PutSignedVarint(t.valid_to);
  enc->PutSignedVarint(t.recorded_at);
  enc->PutSignedVarint(t.retired_at);
}

bool GetTimes(Decoder* dec, GraphTimes* t) {
  return dec->GetSignedVarint(&t->valid_from) && dec->GetSignedVarint(&t->valid_to) &&
         dec->GetSignedVarint(&t->recorded_at) && dec->GetSignedVarint(&t->retired_at);
}

bool GetString(Decoder* dec, size_t limit, std::string* out) {
  std::string_view b;
  if (!dec->GetBytes(&b) || b.size() > limit) return false;
  out->assign(b);
  return true;
}

bool GetGraphId(Decoder* dec, GraphId* id) {
  std::string_view raw;
  if (!dec->GetRaw(kIdSize, &raw)) return false;
  *id = GraphId::FromBytes(raw);
  return true;
}

void PutSpan(Encoder* enc, const std::optional<KvSpan>& span) {
  enc->PutU8(span ? 1 : 0);
  if (!span) return;
  enc->PutBytes(span->cache);
  enc->PutVarint(span->start);
  enc->PutVarint(span->end);
  enc->PutVarint(span->cache_tokens);
  enc->PutBytes(span->tokens_hash);
}

bool GetSpan(Decoder* dec, std::optional<KvSpan>* out) {
  uint8_t has = 0;
  if (!dec->GetU8(&has) || has > 1) return false;
  if (has == 0) return true;
  KvSpan span;
  if (!GetString(dec, kMaxGraphName, &span.cache) || !dec->GetVarint(&span.start) ||
      !dec->GetVarint(&span.end) || !dec->GetVarint(&span.cache_tokens) ||
      !GetString(dec, kMaxGraphName, &span.tokens_hash)) {
    return false;
  }
  *out = std::move(span);
  return true;
}

// A whole edge key: every part, even a zero id (EdgePrefix leaves those out).
std::string EdgeKey(const GraphId& owner, RecordType type, std::string_view kind,
                    const GraphId& other, const GraphId& edge) {
  std::string key = NodePrefix(owner);
  key.push_back(static_cast<char>(type));
  key.append(kind);
  key.push_back('\0');
  key.append(other.AsBytes());
  key.append(edge.AsBytes());
  return key;
}

}  // namespace

bool IsValidKind(std::string_view kind) {
  if (kind.empty() || kind.size() > kMaxGraphKind) return false;
  for (char c : kind) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

std::string NodePrefix(const GraphId& id) { return std::string(id.AsBytes()); }

std::string NodeKey(const GraphId& id) {
  std::string key = NodePrefix(id);
  key.push_back(static_cast<char>(RecordType::kNode));
  return key;
}

std::string EdgePrefix(const GraphId& id, RecordType type, std::string_view kind,
                       const GraphId& other) {
  std::string key = NodePrefix(id);
  key.push_back(static_cast<char>(type));
  if (kind.empty()) return key;
  key.append(kind);
  key.push_back('\0');
  if (!other.IsZero()) key.append(other.AsBytes());
  return key;
}

std::string OutEdgeKey(const GraphEdge& e) {
  return EdgeKey(e.from, RecordType::kOutEdge, e.kind, e.to, e.id);
}

std::string InEdgeKey(const GraphEdge& e) {
  return EdgeKey(e.to, RecordType::kInEdge, e.kind, e.from, e.id);
}

Status ParseRecordKey(std::string_view key, RecordKey* out) {
  if (key.size() < kIdSize + 1) return Bad("a key is too short");
  out->owner = GraphId::FromBytes(key.substr(0, kIdSize));
  char type = key[kIdSize];
  if (type == static_cast<char>(RecordType::kNode)) {
    if (key.size() != kIdSize + 1) return Bad("a node key has trailing bytes");
    out->type = RecordType::kNode;
    return Status::Ok();
  }
  if (type != static_cast<char>(RecordType::kOutEdge) &&
      type != static_cast<char>(RecordType::kInEdge)) {
    return Bad("a key has an unknown record type");
  }
  out->type = static_cast<RecordType>(type);
  std::string_view rest = key.substr(kIdSize + 1);
  size_t end = rest.find('\0');
  if (end == std::string_view::npos || rest.size() != end + 1 + 2 * kIdSize) {
    return Bad("an edge key is malformed");
  }
  out->kind.assign(rest.substr(0, end));
  if (!IsValidKind(out->kind)) return Bad("an edge key has a bad kind");
  out->other = GraphId::FromBytes(rest.substr(end + 1, kIdSize));
  out->edge = GraphId::FromBytes(rest.substr(end + 1 + kIdSize, kIdSize));
  return Status::Ok();
}

std::string EncodeNode(const GraphNode& n) {
  Encoder enc;
  enc.PutU8(kNodeFormat);
  enc.PutBytes(n.kind);
  enc.PutBytes(n.text);
  enc.PutBytes(n.properties);
  enc.PutBytes(n.thread);
  enc.PutBytes(n.key);
  enc.PutBytes(n.source);
  PutTimes(&enc, n.times);
  PutSpan(&enc, n.span);
  enc.PutU8(static_cast<uint8_t>(n.action));
  enc.PutRaw(n.result.AsBytes());
  return enc.Take();
}

Status DecodeNode(const GraphId& id, std::string_view value, GraphNode* out) {
  Decoder dec(value);
  uint8_t format = 0;
  if (!dec.GetU8(&format) || format != kNodeFormat) return Bad("a node has an unknown format");
  GraphNode n;
  n.id = id;
  uint8_t action = 0;
  if (!GetString(&dec, kMaxGraphKind, &n.kind) || !GetString(&dec, kMaxGraphText, &n.text) ||
      !GetString(&dec, kMaxGraphProperties, &n.properties) ||
      !GetString(&dec, kMaxGraphName, &n.thread) || !GetString(&dec, kMaxGraphName, &n.key) ||
      !GetString(&dec, kMaxGraphName, &n.source) || !GetTimes(&dec, &n.times) ||
      !GetSpan(&dec, &n.span) || !dec.GetU8(&action) || !GetGraphId(&dec, &n.result) ||
      !dec.done()) {
    return Bad("a node is truncated or has a field past its bound");
  }
  if (!IsValidKind(n.kind)) return Bad("a node has a bad kind");
  if (action > static_cast<uint8_t>(ActionState::kFailed)) return Bad("a node has a bad action state");
  n.action = static_cast<ActionState>(action);
  *out = std::move(n);
  return Status::Ok();
}

std::string EncodeEdge(const GraphEdge& e) {
  Encoder enc;
  enc.PutU8(kEdgeFormat);
  enc.PutBytes(e.properties);
  PutTimes(&enc, e.times);
  return enc.Take();
}

Status DecodeEdge(const RecordKey& key, std::string_view value, GraphEdge* out) {
  if (key.type != RecordType::kOutEdge) return Bad("an edge is read from a key not its own");
  Decoder dec(value);
  uint8_t format = 0;
  if (!dec.GetU8(&format) || format != kEdgeFormat) return Bad("an edge has an unknown format");
  GraphEdge e;
  e.id = key.edge;
  e.kind = key.kind;
  e.from = key.owner;
  e.to = key.other;
  if (!GetString(&dec, kMaxGraphProperties, &e.properties) || !GetTimes(&dec, &e.times) ||
      !dec.done()) {
    return Bad("an edge is truncated or has a field past its bound");
  }
  *out = std::move(e);
  return Status::Ok();
}

}  // namespace vexfs::graph
