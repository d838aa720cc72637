// The C API's memory-graph calls (vexfs/vexfs.h), in JSON both ways: requests
// decode through GraphBatchFromJson and answers encode as every front end
// encodes them (vexfs/json.h).
#include <nlohmann/json.hpp>

#include "capi/c_handles.h"
#include "vexfs/graph.h"
#include "vexfs/json.h"
#include "vexfs/transcript.h"
#include "vexfs/vexfs.h"

namespace {

using vexfs::Result;
using vexfs::Status;
using vexfs::capi::CopyOut;
using vexfs::capi::Fail;
using vexfs::capi::FailInvalid;
using vexfs::capi::Guard;
using vexfs::capi::OrEmpty;

// Hands `text` to the caller through `out`.
int Answer(const std::string& text, char** out) {
  if (out == nullptr) return VEXFS_OK;
  *out = CopyOut(text);
  return *out == nullptr ? Fail(Status::NoSpace("out of memory")) : VEXFS_OK;
}

int AnswerJson(const nlohmann::json& j, char** out) {
  return Answer(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), out);
}

vexfs::GraphReadOptions ReadOf(vexfs_store* s, const char* at, bool all) {
  vexfs::GraphReadOptions read;
  read.snapshot = OrEmpty(at);
  read.branch = s->branch;
  read.include_invalid = all;
  read.include_retired = all;
  return read;
}

int Apply(vexfs_store* s, const vexfs::GraphBatch& batch, char** out) {
  auto result = s->db->graph().Apply(batch, s->branch);
  if (!result.ok()) return Fail(result.status());
  return AnswerJson(vexfs::GraphWriteResultJson(*result), out);
}

}  // namespace

extern "C" {

int vexfs_graph_add(vexfs_store* store, const char* request_json, char** result_json) {
  return Guard([&]() -> int {
    if (store == nullptr || request_json == nullptr) return FailInvalid("store and request must not be NULL");
    nlohmann::json request = nlohmann::json::parse(request_json, nullptr, /*allow_exceptions=*/false);
    if (request.is_discarded()) return FailInvalid("the graph request is not JSON");
    auto batch = vexfs::GraphBatchFromJson(request);
    if (!batch.ok()) return Fail(batch.status());
    return Apply(store, *batch, result_json);
  });
}

int vexfs_graph_get(vexfs_store* store, const char* ref, const char* at, int all, char** node_json) {
  return Guard([&]() -> int {
    if (store == nullptr || ref == nullptr || node_json == nullptr) return FailInvalid("arguments must not be NULL");
    auto id = vexfs::ParseGraphRef(ref);
    if (!id.ok()) return Fail(id.status());
    vexfs::GraphReadOptions read = ReadOf(store, at, all != 0);
    auto node = store->db->graph().Node(*id, read);
    if (!node.ok()) return Fail(node.status());
    if (*node) return AnswerJson(vexfs::GraphNodeJson(**node), node_json);
    auto edge = store->db->graph().Edge(*id, read);
    if (!edge.ok()) return Fail(edge.status());
    if (!*edge) return Fail(Status::NotFound("no node or edge " + id->ToHex()));
    return AnswerJson(vexfs::GraphEdgeJson(**edge), node_json);
  });
}

int vexfs_graph_neighbors(vexfs_store* store, const char* ref, int depth, const char* at, char** json) {
  return Guard([&]() -> int {
    if (store == nullptr || ref == nullptr || json == nullptr) return FailInvalid("arguments must not be NULL");
    auto id = vexfs::ParseGraphRef(ref);
    if (!id.ok()) return Fail(id.status());
    vexfs::NeighborQuery q{.start = *id, .depth = depth, .read = ReadOf(store, at, false)};
    auto hood = store->db->graph().Neighbors(q);
    if (!hood.ok()) return Fail(hood.status());
    return AnswerJson(vexfs::NeighborhoodJson(*hood), json);
  });
}

int vexfs_graph_search(vexfs_store* store, const char* request_json, char** result_json) {
  return Guard([&]() -> int {
    if (store == nullptr || request_json == nullptr || result_json == nullptr) {
      return FailInvalid("arguments must not be NULL");
    }
    nlohmann::json request = nlohmann::json::parse(request_json, nullptr, /*allow_exceptions=*/false);
    if (request.is_discarded()) return FailInvalid("the graph search request is not JSON");
    vexfs::SearchRequest search;
    vexfs::NodeSearch nodes;
    vexfs::Status st = vexfs::GraphSearchFromJson(request, &search, &nodes);
    if (!st.ok()) return Fail(st);
    if (search.snapshot.empty()) search.branch = store->branch;
    auto result = store->db->SearchGraph(search, nodes, /*wait=*/!store->db->read_only());
    if (!result.ok()) return Fail(result.status());
    return AnswerJson(vexfs::SearchResultJson(*result), result_json);
  });
}

int vexfs_graph_diff(vexfs_store* store, const char* from, const char* to, char** json) {
  return Guard([&]() -> int {
    if (store == nullptr || from == nullptr || to == nullptr || json == nullptr) {
      return FailInvalid("arguments must not be NULL");
    }
    auto diff = store->db->graph().Diff(from, to, store->branch);
    if (!diff.ok()) return Fail(diff.status());
    return AnswerJson(vexfs::GraphDiffJson(*diff), json);
  });
}

int vexfs_graph_actions(vexfs_store* store, const char* state, const char* at, char** json) {
  return Guard([&]() -> int {
    if (store == nullptr || json == nullptr) return FailInvalid("arguments must not be NULL");
    vexfs::GraphQuery q{.kind = vexfs::node_kind::kPendingAction, .read = ReadOf(store, at, false)};
    if (state != nullptr) {
      auto parsed = vexfs::ParseActionState(state);
      if (!parsed.ok()) return Fail(parsed.status());
      q.action = *parsed;
    }
    auto nodes = store->db->graph().Nodes(q);
    if (!nodes.ok()) return Fail(nodes.status());
    nlohmann::json out = nlohmann::json::array();
    for (const vexfs::GraphNode& n : *nodes) out.push_back(vexfs::GraphNodeJson(n));
    return AnswerJson(out, json);
  });
}

int vexfs_graph_set_action(vexfs_store* store, const char* ref, const char* state, const char* result_ref) {
  return Guard([&]() -> int {
    if (store == nullptr || ref == nullptr || state == nullptr) return FailInvalid("arguments must not be NULL");
    auto id = vexfs::ParseGraphRef(ref);
    if (!id.ok()) return Fail(id.status());
    auto parsed = vexfs::ParseActionState(state);
    if (!parsed.ok()) return Fail(parsed.status());
    vexfs::GraphId result;
    if (result_ref != nullptr) {
      auto r = vexfs::ParseGraphRef(result_ref);
      if (!r.ok()) return Fail(r.status());
      result = *r;
    }
    vexfs::GraphBatch batch;
    batch.SetAction(*id, *parsed, result);
    return Apply(store, batch, nullptr);
  });
}

int vexfs_graph_import(vexfs_store* store, const char* jsonl, const char* format, const char* thread,
                       char** result_json) {
  return Guard([&]() -> int {
    if (store == nullptr || jsonl == nullptr || format == nullptr || thread == nullptr) {
      return FailInvalid("arguments must not be NULL");
    }
    auto parsed = vexfs::ParseTranscriptFormat(format);
    if (!parsed.ok()) return Fail(parsed.status());
    auto batch = vexfs::TranscriptToBatch(jsonl, *parsed, thread);
    if (!batch.ok()) return Fail(batch.status());
    return Apply(store, *batch, result_json);
  });
}

int vexfs_graph_export(vexfs_store* store, const char* thread, const char* format, const char* at,
                       char** jsonl) {
  return Guard([&]() -> int {
    if (store == nullptr || thread == nullptr || format == nullptr || jsonl == nullptr) {
      return FailInvalid("arguments must not be NULL");
    }
    auto parsed = vexfs::ParseTranscriptFormat(format);
    if (!parsed.ok()) return Fail(parsed.status());
    auto lines = vexfs::ExportTranscript(store->db->graph(), thread, *parsed, ReadOf(store, at, false));
    if (!lines.ok()) return Fail(lines.status());
    return Answer(*lines, jsonl);
  });
}

}  // extern "C"
