// OpenAI chat messages in and out of the graph (vexfs/transcript.h): a message
// is a turn (a `tool` message a tool_result), each of its `tool_calls` a
// tool_call node the turn `called`, each tool message `returned` by the call
// its tool_call_id names.
#include <algorithm>
#include <map>

#include "graph/transcript/transcript_parts.h"

namespace vexfs::graph::transcript {
namespace {

// What the node keeps of a message's content: the text, or the content itself
// when it is not a string ("content"), or that it had none ("no_content").
std::string ContentText(const json& msg, json* transcript) {
  if (!msg.contains("content")) {
    (*transcript)["no_content"] = true;
    return "";
  }
  const json& content = msg["content"];
  if (content.is_string()) return content.get<std::string>();
  (*transcript)["content"] = content;
  return JoinedText(content);
}

std::string Speaker(const json& msg) {
  if (msg.contains("name") && msg["name"].is_string()) return msg["name"].get<std::string>();
  return msg["role"].get<std::string>();
}

Status AddCalls(BatchBuilder& builder, const Line& line, const GraphId& turn,
                std::map<std::string, GraphId>* calls) {
  const json& list = line.message["tool_calls"];
  for (size_t k = 0; k < list.size(); ++k) {
    const json& call = list[k];
    if (!call.is_object() || !call.contains("id") || !call["id"].is_string()) {
      return LineError(line.number, "tool call " + std::to_string(k + 1) + " has no string id");
    }
    std::string id = call["id"].get<std::string>();
    json function = call.value("function", json::object());
    std::string text = function.value("name", "") + "(" +
                       (function.contains("arguments") && function["arguments"].is_string()
                            ? function["arguments"].get<std::string>()
                            : "") +
                       ")";
    VEXFS_ASSIGN_OR_RETURN(GraphId node, builder.AddPart(line, "/call/" + std::to_string(k), node_kind::kToolCall,
                                                         text, json{{"call", call}, {"index", k}}, turn,
                                                         edge_kind::kCalled));
    (*calls)[id] = node;
  }
  return Status::Ok();
}

// One message: a turn, or for role "tool" a tool_result its call returned.
Status AddMessageLine(BatchBuilder& builder, const Line& line, std::map<std::string, GraphId>* calls) {
  const json& msg = line.message;
  if (!msg.contains("role") || !msg["role"].is_string()) return LineError(line.number, "a message needs a role");
  if (msg.contains("tool_calls") && !msg["tool_calls"].is_array()) {
    return LineError(line.number, "tool_calls is not an array");
  }
  json transcript{{"fields", FieldsWithout(msg, {"content", "tool_calls"})}};
  std::string text = ContentText(msg, &transcript);
  if (msg.contains("tool_calls")) transcript["tool_calls"] = msg["tool_calls"].size();
  GraphId node;
  if (msg["role"] == "tool") {
    if (!msg.contains("tool_call_id") || !msg["tool_call_id"].is_string()) {
      return LineError(line.number, "a tool message needs a tool_call_id");
    }
    std::string call = msg["tool_call_id"].get<std::string>();
    auto it = calls->find(call);
    if (it == calls->end()) {
      return LineError(line.number, "a tool result for call '" + call + "', which no earlier message made");
    }
    VEXFS_ASSIGN_OR_RETURN(node, builder.AddMessage(line, node_kind::kToolResult, text, transcript, Speaker(msg)));
    builder.Link(edge_kind::kReturned, it->second, node);
  } else {
    VEXFS_ASSIGN_OR_RETURN(node, builder.AddMessage(line, node_kind::kTurn, text, transcript, Speaker(msg)));
  }
  if (!msg.contains("tool_calls")) return Status::Ok();
  return AddCalls(builder, line, node, calls);
}

}  // namespace

Result<GraphBatch> OpenAiBatch(const std::vector<Line>& lines, std::string_view thread) {
  BatchBuilder builder(thread, TranscriptFormat::kOpenAI);
  std::map<std::string, GraphId> calls;  // tool_call id -> its node
  for (const Line& line : lines) {
    Status added;
    // A member of an unexpected type makes nlohmann throw: the line is malformed.
    try {
      added = AddMessageLine(builder, line, &calls);
    } catch (const json::exception& e) {
      added = LineError(line.number, std::string("a malformed message: ") + e.what());
    }
    VEXFS_RETURN_IF_ERROR(added);
  }
  return builder.Take();
}

Result<json> OpenAiMessage(Graph& graph, const GraphNode& node, const GraphReadOptions& read) {
  VEXFS_ASSIGN_OR_RETURN(json t, TranscriptOf(node));
  json msg = t.value("fields", json::object());
  if (t.contains("content")) {
    msg["content"] = t["content"];
  } else if (!t.value("no_content", false)) {
    msg["content"] = node.text;
  }
  if (!t.contains("tool_calls")) return msg;
  NeighborQuery q{.start = node.id, .depth = 1, .edge_kinds = {edge_kind::kCalled},
                  .direction = GraphDirection::kOut, .read = read};
  VEXFS_ASSIGN_OR_RETURN(Neighborhood hood, graph.Neighbors(q));
  std::vector<std::pair<size_t, json>> calls;
  for (size_t i = 1; i < hood.nodes.size(); ++i) {
    VEXFS_ASSIGN_OR_RETURN(json part, TranscriptOf(hood.nodes[i]));
    calls.emplace_back(part.value("index", size_t{0}), part.value("call", json::object()));
  }
  std::sort(calls.begin(), calls.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  msg["tool_calls"] = json::array();
  for (auto& [index, call] : calls) msg["tool_calls"].push_back(std::move(call));
  return msg;
}

}  // namespace vexfs::graph::transcript
