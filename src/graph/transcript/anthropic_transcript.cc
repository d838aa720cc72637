// Anthropic Messages in and out of the graph (vexfs/transcript.h): a message
// is a turn whose text is its text blocks; each tool_use block a tool_call the
// turn `called`; each tool_result block a tool_result `returned` by the call its
// tool_use_id names. The turn keeps its blocks in order, with the tool blocks
// as references to their nodes, so export rebuilds the content as it was.
#include <map>

#include "graph/transcript/transcript_parts.h"

namespace vexfs::graph::transcript {
namespace {

std::string BlockSuffix(size_t i) { return "/block/" + std::to_string(i); }

std::string BlockType(const json& block) {
  if (!block.is_object() || !block.contains("type") || !block["type"].is_string()) return "";
  return block["type"].get<std::string>();
}

bool IsToolBlock(const json& block) {
  std::string type = BlockType(block);
  return type == "tool_use" || type == "tool_result";
}

// The turn's blocks: text and other blocks whole, tool blocks as null, with
// their places listed in "parts" (their content is in their own nodes).
void KeepBlocks(const json& content, json* transcript) {
  json blocks = json::array();
  json parts = json::array();
  for (size_t i = 0; i < content.size(); ++i) {
    bool tool = IsToolBlock(content[i]);
    blocks.push_back(tool ? json() : content[i]);
    if (tool) parts.push_back(i);
  }
  (*transcript)["blocks"] = std::move(blocks);
  (*transcript)["parts"] = std::move(parts);
}

Status AddToolUse(BatchBuilder& builder, const Line& line, size_t i, const GraphId& turn,
                  std::map<std::string, GraphId>* uses) {
  const json& block = line.message["content"][i];
  if (!block.contains("id") || !block["id"].is_string()) {
    return LineError(line.number, "tool_use block " + std::to_string(i + 1) + " has no string id");
  }
  std::string name = block.contains("name") && block["name"].is_string() ? block["name"].get<std::string>() : "";
  std::string text = name + " " + (block.contains("input") ? block["input"].dump() : std::string("{}"));
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

// One message: its turn, then a node for each of its tool blocks.
Status AddMessageLine(BatchBuilder& builder, const Line& line, std::map<std::string, GraphId>* uses) {
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
    KeepBlocks(msg["content"], &transcript);
    text = JoinedText(msg["content"]);
  } else {
    transcript["content"] = msg["content"];
  }
  std::string speaker = msg.contains("name") && msg["name"].is_string() ? msg["name"].get<std::string>()
                                                                      : msg["role"].get<std::string>();
  VEXFS_ASSIGN_OR_RETURN(GraphId turn, builder.AddMessage(line, node_kind::kTurn, text, transcript, speaker));
  if (!blocks) return Status::Ok();
  for (size_t i = 0; i < msg["content"].size(); ++i) {
    std::string type = BlockType(msg["content"][i]);
    if (type == "tool_use") VEXFS_RETURN_IF_ERROR(AddToolUse(builder, line, i, turn, uses));
    if (type == "tool_result") VEXFS_RETURN_IF_ERROR(AddToolResult(builder, line, i, *uses));
  }
  return Status::Ok();
}

}  // namespace

Result<GraphBatch> AnthropicBatch(const std::vector<Line>& lines, std::string_view thread) {
  BatchBuilder builder(thread, TranscriptFormat::kAnthropic);
  std::map<std::string, GraphId> uses;  // tool_use id -> its node
  for (const Line& line : lines) {
    Status added;
    // A member of an unexpected type makes nlohmann throw: the line is malformed.
    try {
      added = AddMessageLine(builder, line, &uses);
    } catch (const json::exception& e) {
      added = LineError(line.number, std::string("a malformed message: ") + e.what());
    }
    VEXFS_RETURN_IF_ERROR(added);
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
  json content = t["blocks"];
  for (const json& place : t.value("parts", json::array())) {
    size_t i = place.get<size_t>();
    if (i >= content.size()) return Status::Corruption("node " + node.id.ToHex() + " lists a part it lacks");
    std::string key = node.key + BlockSuffix(i);
    VEXFS_ASSIGN_OR_RETURN(std::optional<GraphNode> part, graph.Node(GraphIdForKey(key), read));
    if (!part) return Status::NotFound("a tool block of node " + node.id.ToHex() + " is not in the graph read");
    VEXFS_ASSIGN_OR_RETURN(json pt, TranscriptOf(*part));
    json rebuilt = pt.value("block", json::object());
    if (pt.contains("content")) {
      rebuilt["content"] = pt["content"];
    } else if (part->kind == node_kind::kToolResult && !pt.value("no_content", false)) {
      rebuilt["content"] = part->text;
    }
    content[i] = std::move(rebuilt);
  }
  msg["content"] = std::move(content);
  return msg;
}

}  // namespace vexfs::graph::transcript
