// The graph's value types (vexfs/graph.h): ids and how they are derived, entity
// names, action states, change kinds, and building a batch.
#include <sys/random.h>

#include "common/sha256.h"
#include "vexfs/graph.h"

namespace vexfs {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The first 16 bytes of SHA-256 over a domain tag and the parts, each ended by
// a NUL, so ("ab", "c") and ("a", "bc") name different ids.
GraphId DerivedId(std::string_view domain, std::initializer_list<std::string_view> parts) {
  Sha256 hasher;
  hasher.Update(domain);
  for (std::string_view part : parts) {
    hasher.Update(std::string_view("\0", 1));
    hasher.Update(part);
  }
  ObjectId digest = hasher.Finish();
  return GraphId::FromBytes(digest.AsBytes().substr(0, 16));
}

// 128 random bits: ids of nodes without a key never collide in practice.
GraphId RandomId() {
  GraphId id;
  size_t got = 0;
  while (got < id.bytes.size()) {
    ssize_t n = getrandom(id.bytes.data() + got, id.bytes.size() - got, 0);
    if (n > 0) got += static_cast<size_t>(n);
  }
  return id;
}

}  // namespace

bool GraphId::IsZero() const {
  for (uint8_t b : bytes) {
    if (b != 0) return false;
  }
  return true;
}

std::string GraphId::ToHex() const {
  static const char kDigits[] = "0123456789abcdef";
  std::string out(32, '0');
  for (size_t i = 0; i < bytes.size(); ++i) {
    out[2 * i] = kDigits[bytes[i] >> 4];
    out[2 * i + 1] = kDigits[bytes[i] & 0xf];
  }
  return out;
}

Result<GraphId> GraphId::FromHex(std::string_view hex) {
  if (hex.size() != 32) {
    return Status::InvalidArgument("graph id '" + std::string(hex) + "' is not 32 hex digits");
  }
  GraphId id;
  for (size_t i = 0; i < id.bytes.size(); ++i) {
    int hi = HexDigit(hex[2 * i]);
    int lo = HexDigit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      return Status::InvalidArgument("graph id '" + std::string(hex) + "' has a non-hex digit");
    }
    id.bytes[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return id;
}

GraphId GraphId::FromBytes(std::string_view raw) {
  GraphId id;
  for (size_t i = 0; i < id.bytes.size() && i < raw.size(); ++i) {
    id.bytes[i] = static_cast<uint8_t>(raw[i]);
  }
  return id;
}

GraphId GraphIdForKey(std::string_view key) { return DerivedId("vexfs graph key", {key}); }

GraphId GraphIdForEntity(std::string_view kind, std::string_view name) {
  return DerivedId("vexfs graph entity", {kind, NormaliseEntityName(name)});
}

// ASCII only, whatever the process's locale: ids must not differ between
// processes (in a Latin-1 locale, isspace(0xA0) is true, and 0xA0 is a UTF-8
// continuation byte).
std::string NormaliseEntityName(std::string_view name) {
  std::string out;
  bool space = false;
  for (char c : name) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
  }
  return out;
}

Result<GraphId> ParseGraphRef(std::string_view ref) {
  if (ref.starts_with("key:")) return GraphIdForKey(ref.substr(4));
  if (ref.starts_with("entity:")) return GraphIdForEntity(node_kind::kEntity, ref.substr(7));
  if (GraphId::FromHex(ref).ok()) return GraphId::FromHex(ref);
  return Status::InvalidArgument("'" + std::string(ref) +
                                 "' names no node: give 32 hex digits, key:KEY or entity:NAME");
}

const char* ActionStateName(ActionState state) {
  switch (state) {
    case ActionState::kNone: return "none";
    case ActionState::kPlanned: return "planned";
    case ActionState::kStarted: return "started";
    case ActionState::kDone: return "done";
    case ActionState::kFailed: return "failed";
  }
  return "?";
}

Result<ActionState> ParseActionState(std::string_view name) {
  for (ActionState s : {ActionState::kPlanned, ActionState::kStarted, ActionState::kDone,
                        ActionState::kFailed}) {
    if (name == ActionStateName(s)) return s;
  }
  return Status::InvalidArgument("unknown action state '" + std::string(name) +
                                 "' (planned, started, done or failed)");
}

const char* GraphChangeKindName(GraphChange::Kind kind) {
  switch (kind) {
    case GraphChange::Kind::kAdded: return "added";
    case GraphChange::Kind::kRemoved: return "removed";
    case GraphChange::Kind::kModified: return "modified";
    case GraphChange::Kind::kInvalidated: return "invalidated";
    case GraphChange::Kind::kRetired: return "retired";
    case GraphChange::Kind::kAction: return "action";
    case GraphChange::Kind::kSuperseded: return "superseded";
  }
  return "?";
}

GraphId GraphBatch::AddNode(NodeSpec spec) {
  GraphId id;
  if (!spec.key.empty()) {
    id = GraphIdForKey(spec.key);
  } else if (spec.kind == node_kind::kEntity) {
    id = GraphIdForEntity(spec.kind, spec.text);
  } else {
    id = RandomId();
  }
  Item item{.op = Item::Op::kAddNode, .id = id, .node = std::move(spec)};
  items_.push_back(std::move(item));
  return id;
}

void GraphBatch::Link(EdgeSpec spec) {
  Item item{.op = Item::Op::kLink, .id = RandomId(), .edge = std::move(spec)};
  items_.push_back(std::move(item));
}

void GraphBatch::Invalidate(const GraphId& id, TimeNs at) {
  items_.push_back(Item{.op = Item::Op::kInvalidate, .id = id, .at = at});
}

void GraphBatch::Retire(const GraphId& id) {
  items_.push_back(Item{.op = Item::Op::kRetire, .id = id});
}

void GraphBatch::SetAction(const GraphId& action, ActionState state, const GraphId& result) {
  items_.push_back(
      Item{.op = Item::Op::kSetAction, .id = action, .action = state, .result = result});
}

}  // namespace vexfs
