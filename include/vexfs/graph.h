// vexfs::Graph: an agent's memory graph (turns, tool calls and their results,
// facts, entities, plans, pending actions), kept in the store beside its files
// and versioned in the same snapshots.
//
// What it guarantees
// - Nothing is deleted. A fact stops being true (Invalidate: its valid time
//   ends) or is superseded by a newer one (a `supersedes` edge ends the older
//   fact's valid time where the newer begins); a record the agent no longer
//   holds is retired (Retire: its record time ends). Reads leave out retired
//   and no-longer-valid items unless asked, and can ask as of any valid time.
// - Ids are stable: a node written with a key has the id its key names
//   (GraphIdForKey), an entity without one the id of its kind and normalised
//   name (GraphIdForEntity), so writing the same thing twice, or in two stores,
//   gives one node with one id; and the same name never makes two entities.
// - A batch (GraphBatch) is all or nothing: a bad item writes nothing and the
//   error names it. ApplyIn writes a batch inside a caller's own edit, so graph
//   records commit in the same transaction as the files written there.
// - A snapshot commits the graph with the files: the graph's snapshot root is a
//   hash tree (docs/graph.md), so a snapshot after a small change writes only
//   the paths to what changed, and Diff skips equal subtrees. Any snapshot's
//   graph is read in place; restore and branches bring it back; gc keeps it and
//   fsck checks it.
//
// What it does not guarantee
// - Reads of a snapshot by kind or thread, and of an edge by id, scan that
//   snapshot's whole graph (the working graph has indexes for them); a node by
//   id and its neighbours descend the hash tree.
//
// Thread-safety: a Graph may be used from many threads at once. Every call is
// one store transaction; writers exclude one another (processes included).
#ifndef VEXFS_GRAPH_H_
#define VEXFS_GRAPH_H_

#include <array>
#include <compare>
#include <functional>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vexfs/status.h"
#include "vexfs/store.h"
#include "vexfs/types.h"

// The public API: exported from libvexfs.so, which is built with hidden visibility.
#pragma GCC visibility push(default)

namespace vexfs {

class StoreTxn;

// The end of a time range that has not ended.
constexpr TimeNs kGraphForever = std::numeric_limits<TimeNs>::max();
// Bounds on what one node or edge holds (kInvalidArgument beyond them).
constexpr size_t kMaxGraphText = 1 << 20;        // bytes of UTF-8
constexpr size_t kMaxGraphProperties = 1 << 16;  // bytes of the JSON object
constexpr size_t kMaxGraphName = 256;            // a thread, source or key (bytes)
constexpr size_t kMaxGraphKind = 64;             // [a-z0-9_]

// A node's or an edge's id: 16 bytes, written as 32 lowercase hex digits.
struct GraphId {
  std::array<uint8_t, 16> bytes{};

  bool IsZero() const;
  std::string ToHex() const;
  // Exactly 32 hex digits; kInvalidArgument otherwise.
  static Result<GraphId> FromHex(std::string_view hex);
  static GraphId FromBytes(std::string_view raw);  // raw.size() must be 16
  std::string_view AsBytes() const {
    return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
  }
  friend bool operator==(const GraphId&, const GraphId&) = default;
  friend auto operator<=>(const GraphId&, const GraphId&) = default;
};

// The id a node written with `key` has, in every store.
GraphId GraphIdForKey(std::string_view key);
// The id of the entity of `kind` named `name` (written without a key): names
// equal once normalised (NormaliseEntityName) name one entity.
GraphId GraphIdForEntity(std::string_view kind, std::string_view name);
// Lower-cased ASCII letters, runs of white space as one space, none at the ends.
std::string NormaliseEntityName(std::string_view name);
// A node or edge named as users name them: 32 hex digits, "key:KEY"
// (GraphIdForKey) or "entity:NAME" (an entity of kind "entity", by name).
// kInvalidArgument naming the text otherwise.
Result<GraphId> ParseGraphRef(std::string_view ref);

// Valid time: when the item was true of the world. Record time: when the graph
// held it (recorded_at is set on write, retired_at by Retire).
struct GraphTimes {
  TimeNs valid_from = 0;
  TimeNs valid_to = kGraphForever;
  TimeNs recorded_at = 0;
  TimeNs retired_at = kGraphForever;
  friend bool operator==(const GraphTimes&, const GraphTimes&) = default;
};

// Tokens [start, end) of a KV cache (a USXF KV state, by its identity) that a
// node covers, with the hash of those token ids, so a resumed agent knows which
// turns its cache holds and which it would have to read again.
struct KvSpan {
  std::string cache{};        // the KV state's identity (1-256 bytes)
  uint64_t start = 0;
  uint64_t end = 0;
  uint64_t cache_tokens = 0;  // the cache's length: end may not pass it
  std::string tokens_hash{};  // e.g. 64 hex digits of SHA-256 of the token ids
  friend bool operator==(const KvSpan&, const KvSpan&) = default;
};

// Where a pending action stands. kNone for every node that is not one.
enum class ActionState : uint8_t { kNone = 0, kPlanned = 1, kStarted = 2, kDone = 3, kFailed = 4 };
const char* ActionStateName(ActionState state);  // "planned", "started", "done", "failed"
Result<ActionState> ParseActionState(std::string_view name);

// The built-in node kinds; any other [a-z0-9_] kind is the caller's own.
namespace node_kind {
inline constexpr char kTurn[] = "turn";
inline constexpr char kToolCall[] = "tool_call";
inline constexpr char kToolResult[] = "tool_result";
inline constexpr char kArtefact[] = "artefact";  // text: a path in the file tree
inline constexpr char kFact[] = "fact";
inline constexpr char kEntity[] = "entity";
inline constexpr char kPlan[] = "plan";
inline constexpr char kPendingAction[] = "pending_action";
}  // namespace node_kind

// The built-in edge kinds; any other [a-z0-9_] kind is the caller's own.
namespace edge_kind {
inline constexpr char kRepliedTo[] = "replied_to";
inline constexpr char kCalled[] = "called";
inline constexpr char kReturned[] = "returned";
inline constexpr char kProduced[] = "produced";
inline constexpr char kMentions[] = "mentions";
inline constexpr char kDerivedFrom[] = "derived_from";
// from supersedes to (a node of the same kind): ends to's valid time where
// from's begins.
inline constexpr char kSupersedes[] = "supersedes";
}  // namespace edge_kind

struct GraphNode {
  GraphId id{};
  std::string kind{};
  std::string text{};               // what search sees
  std::string properties = "{}";  // a JSON object, kept in canonical form
  std::string thread{};             // the conversation or task it belongs to
  std::string key{};                // the caller's key, if it was written with one
  std::string source{};             // provenance: a node id or a tool name
  GraphTimes times{};
  std::optional<KvSpan> span{};
  ActionState action = ActionState::kNone;
  GraphId result{};  // a pending action's result node, once it has one
  friend bool operator==(const GraphNode&, const GraphNode&) = default;
};

struct GraphEdge {
  GraphId id{};
  std::string kind{};
  GraphId from{};
  GraphId to{};
  std::string properties = "{}";
  GraphTimes times{};
  friend bool operator==(const GraphEdge&, const GraphEdge&) = default;
};

// A node to write. Zero times mean "now" for a new node and "unchanged" for
// one that exists (so writing the same item again changes nothing).
struct NodeSpec {
  std::string kind{};
  std::string text{};
  std::string properties = "{}";
  std::string thread{};
  // Makes the write an upsert: the node's id is GraphIdForKey(key). A pending
  // action needs one (its idempotency key).
  std::string key{};
  std::string source{};
  TimeNs valid_from = 0;
  TimeNs valid_to = kGraphForever;
  std::optional<KvSpan> span{};
  // A node that exists must already be this one: writing it again is a no-op,
  // writing something else under its key is refused (transcript imports).
  bool must_match = false;
};

struct EdgeSpec {
  std::string kind{};
  GraphId from{};
  GraphId to{};
  std::string properties = "{}";
  TimeNs valid_from = 0;
  TimeNs valid_to = kGraphForever;
};

// Writes to apply together. Each Add returns the id its node will have, so
// later items of the same batch can link to it.
class GraphBatch {
 public:
  struct Item {
    enum class Op { kAddNode, kLink, kInvalidate, kRetire, kSetAction };
    Op op{};
    GraphId id{};  // the node added, or the item the op is about
    NodeSpec node{};
    EdgeSpec edge{};
    TimeNs at = 0;  // kInvalidate: the end of valid time (0 = now)
    ActionState action = ActionState::kNone;
    GraphId result{};  // kSetAction: the result node (zero = none)
  };

  // A key names the id (GraphIdForKey); an entity without one is named by its
  // name; any other node gets a fresh random id.
  GraphId AddNode(NodeSpec spec);
  void Link(EdgeSpec spec);
  // Ends the valid time of a node or an edge at `at` (0 = now).
  void Invalidate(const GraphId& id, TimeNs at = 0);
  // Ends the record time of a node or an edge (the graph no longer holds it).
  void Retire(const GraphId& id);
  // Moves a pending action to `state`; a done or failed one may name its result.
  void SetAction(const GraphId& action, ActionState state, const GraphId& result = {});

  const std::vector<Item>& items() const { return items_; }
  bool empty() const { return items_.empty(); }

 private:
  std::vector<Item> items_{};
};

struct GraphWriteResult {
  std::vector<GraphId> nodes{};  // the ids of the batch's AddNode items, in order
  std::vector<GraphId> edges{};  // the ids of its Link items, in order
  uint64_t records_changed = 0;  // 0 when the batch changed nothing
};

// Which graph a read sees, and which of its items.
struct GraphReadOptions {
  std::string branch{};  // working graph of this branch ("" = the current one)
  std::string snapshot{};  // or the graph of this snapshot (a name or a commit id)
  TimeNs valid_at = 0;   // items valid at this time (0 = now)
  bool include_invalid = false;  // also items not valid at valid_at
  bool include_retired = false;  // also retired items
};

struct GraphQuery {
  std::string kind{};    // "" = any
  std::string thread{};  // "" = any
  ActionState action = ActionState::kNone;  // kNone = any
  size_t limit = 0;    // 0 = no limit
  GraphReadOptions read{};
};

enum class GraphDirection { kOut, kIn, kBoth };

struct NeighborQuery {
  GraphId start{};
  int depth = 1;                        // 1..8
  std::vector<std::string> edge_kinds{};  // empty = any
  GraphDirection direction = GraphDirection::kBoth;
  size_t limit = 0;                     // nodes, 0 = no limit
  GraphReadOptions read{};
};

struct Neighborhood {
  std::vector<GraphNode> nodes{};  // the start node first, then by distance
  std::vector<GraphEdge> edges{};  // those walked
};

// One difference between two graphs.
struct GraphChange {
  enum class Kind {
    kAdded,        // the item exists only in the newer graph
    kRemoved,      // only in the older one (a restore or branch went back)
    kModified,     // text, properties, thread or span changed
    kInvalidated,  // its valid time ended
    kRetired,      // its record time ended
    kAction,       // a pending action changed state
    kSuperseded,   // a fact was superseded: `node` is the older, `by` the newer
  };
  Kind kind = Kind::kAdded;
  std::optional<GraphNode> node{};    // as in the newer graph (the older for kRemoved)
  std::optional<GraphEdge> edge{};    // for an edge's change
  std::optional<GraphNode> before{};  // a node as in the older graph
  std::optional<GraphEdge> edge_before{};
  GraphId by{};
};
const char* GraphChangeKindName(GraphChange::Kind kind);  // "added", "removed", ...

struct GraphDiff {
  std::vector<GraphChange> changes{};  // nodes before edges, each by id
};

// A node text written since the search index last took it (Graph::PendingTexts).
struct PendingText {
  ObjectId key{};  // the SHA-256 of the text: what ReleaseTexts takes
  std::string text{};
};

// What a graph holds, counted from its records.
struct GraphStats {
  uint64_t nodes = 0;
  uint64_t edges = 0;
};

class Graph {
 public:
  // Registers the graph's tables in `store` and attaches its hooks (Db does it
  // for every front end). On a read-only store that never had a graph it reads
  // as empty and refuses writes.
  static Result<std::unique_ptr<Graph>> Attach(Store* store);
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // Applies `batch` to the working graph of `branch` ("" = current) in one
  // transaction. kInvalidArgument or kNotFound naming the bad item, and nothing
  // written; kReadOnly on a read-only store.
  Result<GraphWriteResult> Apply(const GraphBatch& batch, std::string_view branch = "");
  // The same inside a write transaction the caller owns or was lent (an edit's,
  // TransactionOf), bound to the branch it writes. On an error the caller must
  // abort that transaction: some items may have been written.
  Result<GraphWriteResult> ApplyIn(StoreTxn& txn, const GraphBatch& batch);

  // A node or an edge by id; nullopt if there is none, or the read leaves it out.
  Result<std::optional<GraphNode>> Node(const GraphId& id, const GraphReadOptions& read = {});
  Result<std::optional<GraphEdge>> Edge(const GraphId& id, const GraphReadOptions& read = {});
  // Nodes matching `query`, in valid-time order (then record time, then id).
  Result<std::vector<GraphNode>> Nodes(const GraphQuery& query);
  // The same nodes (query.limit aside) handed to `visit` one at a time, in no
  // particular order and without collecting them, until it returns false: for
  // a caller that filters or counts a large graph (vexfs::Db's graph search).
  // `visit` may move from the node; it runs inside the read transaction, so
  // it must not call into the store.
  Status VisitNodes(const GraphQuery& query, const std::function<bool(GraphNode& node)>& visit);
  // The nodes reachable from query.start within query.depth edges.
  Result<Neighborhood> Neighbors(const NeighborQuery& query);
  // What changed from graph `from` to graph `to`: snapshot names or commit ids,
  // or "WORKING" for the working graph of `branch` ("" = current).
  Result<GraphDiff> Diff(std::string_view from, std::string_view to, std::string_view branch = "");
  Result<GraphStats> Stats(const GraphReadOptions& read = {});

  // Node texts to index for search. Every write that gives a node a new text
  // queues it in the write's own transaction (so no crash loses it), whatever
  // the branch; vexfs::Db's indexer takes them here, indexes them
  // (Index::IndexTexts) and releases them. At most `limit` texts, and no more
  // once `max_bytes` are reached (always at least one).
  Result<std::vector<PendingText>> PendingTexts(size_t limit, size_t max_bytes = 2 << 20);
  // Drops the texts of `keys` from the queue (those absent are ignored).
  Status ReleaseTexts(const std::vector<ObjectId>& keys);
  // Queues again the texts of every node of every branch's working graph and
  // of every snapshot's graph: a new embedder must see them all.
  Status RequeueTexts();

 private:
  struct Rep;
  explicit Graph(std::unique_ptr<Rep> rep);
  Status QueueTextsOnce();
  std::unique_ptr<Rep> rep_{};
};

}  // namespace vexfs

#pragma GCC visibility pop

#endif  // VEXFS_GRAPH_H_
