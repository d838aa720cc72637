// Anthropic Messages in and out of the graph (vexfs/transcript.h): a message
// is a turn whose text is its text blocks; each tool_use block a tool_call the
// turn `called`; each tool_result block a tool_result `returned` by the call its
// tool_use_id names. The turn keeps its blocks in order, with the tool blocks
// as references to their nodes, so export rebuilds the content as it was.
#include <map>

#include "graph/transcript/transcript_parts.h"

namespace vexfs::graph::transcript {
namespace {

constexpr char kPartRef[] = "$part";

std::string BlockSuffix(size_t i) { return "/block/" + std::to_string(i); }

// The turn's block list: text and other blocks whole, tool blocks by index.
json BlockList(const json& content) {
  json blocks = json::array();
  for (size_t i = 0; i < content.size(); ++i) {
    const json& block = content[i];
    std::string type = block.is_object() ? block.value("type", "") : "";
    if (type == "tool_use" || type == "tool_result") {
      blocks.push_back(json{{kPartRef, i}});
    } else {
      blocks.push_back(block);
    }
  }
  return blocks;
}

Status AddToolUse(BatchBuilder& builder, const Line& line, size_t i, const GraphId& turn,
                  std::map<std::string, GraphId>* uses) {
  const json& block = line.message["content"][i];
  if (!block.contains("id") || !block["id"].is_string()) {
    return LineError(line.number, "tool_use block " + std::to_string(i + 1) + " has no string id");
  }
  std::string text = block.value("name", "") + " " + block.value("input", json::object()).dump();
  VEXFS_ASSIGN_OR_RETURN(GraphId node, builder.AddPart(line, BlockSuffix(i), node_kind::kToolCall, text,
                                                       json{{"block", block}}, turn, edge_kind::kCalled));
  (*uses)[block["id"].get<std::string>()] = node;
  return Status::Ok();
}

Status AddToolResult(BatchBuilder& builder, const Line& line, size_t i,
                     const std::map<std::string, GraphId>& uses) {
  const json& block = line.message["content"][i];
  if (!block.contains("tool_use_id") || !block["tool_use_id"].is_string()) {
    return LineError(line.number, "tool_result block " + std::to_string(i + 1) + " has no tool_use_id");
  }
  std::string use = block["tool_use_id"].get<std::string>();
  auto it = uses.find(use);
  if (it == uses.end()) {
    return LineError(line.number, "a tool result for call '" + use + "', which no earlier message made");
  }
  json part{{"block", FieldsWithout(block, {"content"})}};
  std::string text;
  if (!block.contains("content")) {
    part["no_content"] = true;
  } else if (block["content"].is_string()) {
    text = block["content"].get<std::string>();
  } else {
    part["content"] = block["content"];
    text = JoinedText(block["content"]);
  }
  return builder.AddPart(line, BlockSuffix(i), node_kind::kToolResult, text, part, it->second,
                         edge_kind::kReturned)
      .status();
}

}  // namespace

Result<GraphBatch> AnthropicBatch(const std::vector<Line>& lines, std::string_view thread) {
  BatchBuilder builder(thread, TranscriptFormat::kAnthropic);
  std::map<std::string, GraphId> uses;  // tool_use id -> its node
  for (const Line& line : lines) {
    const json& msg = line.message;
    if (!msg.contains("role") || !msg["role"].is_string()) return LineError(line.number, "a message needs a role");
    json transcript{{"fields", FieldsWithout(msg, {"content"})}};
    std::string text;
    bool blocks = msg.contains("content") && msg["content"].is_array();
    if (!msg.contains("content")) {
      transcript["no_content"] = true;
    } else if (msg["content"].is_string()) {
      text = msg["content"].get<std::string>();
    } else if (blocks) {
      transcript["blocks"] = BlockList(msg["content"]);
      text = JoinedText(msg["content"]);
    } else {
      transcript["content"] = msg["content"];
    }
    std::string speaker = msg.contains("name") && msg["name"].is_string() ? msg["name"].get<std::string>()
                                                                        : msg["role"].get<std::string>();
    VEXFS_ASSIGN_OR_RETURN(GraphId turn, builder.AddMessage(line, node_kind::kTurn, text, transcript, speaker));
    if (!blocks) continue;
    for (size_t i = 0; i < msg["content"].size(); ++i) {
      const json& block = msg["content"][i];
      std::string type = block.is_object() ? block.value("type", "") : "";
      if (type == "tool_use") VEXFS_RETURN_IF_ERROR(AddToolUse(builder, line, i, turn, &uses));
      if (type == "tool_result") VEXFS_RETURN_IF_ERROR(AddToolResult(builder, line, i, uses));
    }
  }
  return builder.Take();
}

Result<json> AnthropicMessage(Graph& graph, const GraphNode& node, const GraphReadOptions& read) {
  VEXFS_ASSIGN_OR_RETURN(json t, TranscriptOf(node));
  json msg = t.value("fields", json::object());
  if (t.contains("content")) {
    msg["content"] = t["content"];
    return msg;
  }
  if (!t.contains("blocks")) {
    if (!t.value("no_content", false)) msg["content"] = node.text;
    return msg;
  }
  json content = json::array();
  for (const json& block : t["blocks"]) {
    if (!block.is_object() || !block.contains(kPartRef)) {
      content.push_back(block);
      continue;
    }
    std::string key = node.key + BlockSuffix(block[kPartRef].get<size_t>());
    VEXFS_ASSIGN_OR_RETURN(std::optional<GraphNode> part, graph.Node(GraphIdForKey(key), read));
    if (!part) return Status::NotFound("a tool block of node " + node.id.ToHex() + " is not in the graph read");
    VEXFS_ASSIGN_OR_RETURN(json pt, TranscriptOf(*part));
    json rebuilt = pt.value("block", json::object());
    if (pt.contains("content")) {
      rebuilt["content"] = pt["content"];
    } else if (part->kind == node_kind::kToolResult && !pt.value("no_content", false)) {
      rebuilt["content"] = part->text;
    }
    content.push_back(std::move(rebuilt));
  }
  msg["content"] = std::move(content);
  return msg;
}

}  // namespace vexfs::graph::transcript
