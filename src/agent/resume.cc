// Finding where a moved agent resumes and restoring its KV cache
// (vexfs/agent_resume.h).
#include <sys/stat.h>

#include <algorithm>
#include <chrono>

#include <nlohmann/json.hpp>

#include "vexfs/agent_bundle.h"
#include "vexfs/agent_resume.h"
#include "vexfs/kv/state_file.h"

namespace vexfs::agent {
namespace {

// Where a node stands in the conversation. Nodes written in one batch share
// their recorded time, and ids are hashes, so time alone does not order a
// turn and the reply written with it: a transcript's sequence number does
// (properties.transcript.seq), then the end of a node's KV span, and only
// last the id, so the order is at least the same on every host.
struct ConversationOrder {
  TimeNs valid_from = 0;
  TimeNs recorded_at = 0;
  int64_t seq = -1;
  uint64_t span_end = 0;
  GraphId id;
  auto operator<=>(const ConversationOrder&) const = default;
};

ConversationOrder OrderOf(const GraphNode& n) {
  ConversationOrder o{n.times.valid_from, n.times.recorded_at, -1, n.span ? n.span->end : 0, n.id};
  nlohmann::json props = nlohmann::json::parse(n.properties, nullptr, /*allow_exceptions=*/false);
  if (props.is_object()) {
    auto t = props.find("transcript");
    if (t != props.end() && t->is_object()) {
      auto seq = t->find("seq");
      if (seq != t->end() && seq->is_number_integer()) o.seq = seq->get<int64_t>();
    }
  }
  return o;
}

Result<std::vector<GraphNode>> NodesOfKind(Db& db, const GraphReadOptions& read, const char* kind) {
  GraphQuery q;
  q.kind = kind;
  q.read = read;
  VEXFS_ASSIGN_OR_RETURN(std::vector<GraphNode> nodes, db.graph().Nodes(q));
  std::vector<std::pair<ConversationOrder, size_t>> order;
  order.reserve(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) order.emplace_back(OrderOf(nodes[i]), i);
  std::sort(order.begin(), order.end());
  std::vector<GraphNode> sorted;
  sorted.reserve(nodes.size());
  for (const auto& [key, i] : order) sorted.push_back(std::move(nodes[i]));
  return sorted;
}

// The latest turn with a span (naming `cache`, when given).
const GraphNode* LatestCovered(const std::vector<GraphNode>& turns, std::string_view cache) {
  for (auto it = turns.rbegin(); it != turns.rend(); ++it) {
    if (it->span && (cache.empty() || it->span->cache == cache)) return &*it;
  }
  return nullptr;
}

}  // namespace

Result<ResumePoint> FindResumePoint(Db& db, const GraphReadOptions& read, std::string_view cache,
                                    const std::string& kv_dir) {
  VEXFS_ASSIGN_OR_RETURN(std::vector<GraphNode> turns, NodesOfKind(db, read, node_kind::kTurn));
  const GraphNode* covered = LatestCovered(turns, cache);
  if (covered == nullptr) {
    return Status::NotFound(cache.empty() ? std::string("no turn of the agent's graph names a KV cache")
                                          : "no turn of the agent's graph names KV cache '" + std::string(cache) + "'");
  }
  ResumePoint point;
  point.turn = *covered;
  point.cache = covered->span->cache;
  point.kv_path = KvStatePath(kv_dir.empty() ? DefaultKvDir(db) : kv_dir, point.cache);
  struct stat st;
  if (::stat(point.kv_path.c_str(), &st) != 0) {
    return Status::NotFound("the state of KV cache '" + point.cache + "' is not here (" + point.kv_path +
                            "): import a bundle exported with --kv, or read the prompt again");
  }
  bool after = false;
  for (const GraphNode& t : turns) {
    if (after) point.uncovered_turns.push_back(t);
    after = after || &t == covered;
  }
  VEXFS_ASSIGN_OR_RETURN(std::vector<GraphNode> actions, NodesOfKind(db, read, node_kind::kPendingAction));
  for (GraphNode& a : actions) {
    const bool completed = a.action == ActionState::kDone || a.action == ActionState::kFailed;
    (completed ? point.completed_actions : point.open_actions).push_back(std::move(a));
  }
  return point;
}

Result<ResumeResult> Resume(const ResumePoint& point, const kv::Model& model, const kv::RuntimeSettings& settings,
                            uint32_t generate, const usxf::Keyring* keyring) {
  ResumeResult r;
  auto start = std::chrono::steady_clock::now();
  VEXFS_ASSIGN_OR_RETURN(kv::StateBundle state, kv::ReadStateFile(point.kv_path, keyring));
  r.timings.verify_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // The state must be the one the turn's span describes, not another capture
  // under the same identity.
  const KvSpan& span = *point.turn.span;
  if (state.kv.n_tokens != span.cache_tokens || span.end > state.kv.n_tokens) {
    return Status::InvalidArgument("the state of KV cache '" + point.cache + "' holds " +
                                   std::to_string(state.kv.n_tokens) + " tokens; the turn's span says the cache has " +
                                   std::to_string(span.cache_tokens) + ": another capture under the same identity");
  }
  VEXFS_RETURN_IF_ERROR(kv::CheckIdentity(state.info, model).WithContext("KV cache '" + point.cache + "'"));
  double verify_seconds = r.timings.verify_seconds;
  VEXFS_ASSIGN_OR_RETURN(auto context, kv::RestoreBundle(model, state, settings, generate, &r.timings));
  r.timings.verify_seconds = verify_seconds;
  r.restored_tokens = state.kv.n_tokens;
  start = std::chrono::steady_clock::now();
  VEXFS_ASSIGN_OR_RETURN(r.continuation, context->Greedy(generate));
  r.generate_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (state.reference) {
    const auto& steps = state.reference->steps;
    r.compared = static_cast<uint32_t>(std::min<size_t>(steps.size(), r.continuation.tokens.size()));
    for (uint32_t i = 0; i < r.compared && r.first_divergence < 0; ++i) {
      if (steps[i].token != r.continuation.tokens[i]) r.first_divergence = static_cast<int32_t>(i);
    }
    r.matches_source = r.compared > 0 && r.first_divergence < 0;
  }
  return r;
}

}  // namespace vexfs::agent
