// What importing and exporting both transcript forms share (vexfs/transcript.h):
// node keys from a thread and a message's line, the builder that turns messages
// into a batch (keys, replied_to chains, bounds checked per line), RFC 3339
// times, and the properties under which a node keeps what export needs.
//
// Every imported node's properties are {"transcript": {...}}: "format", and for
// a message "seq" (its line) and "fields" (the message's members other than
// its content, which is the node's text or, when not a string, "content").
#ifndef VEXFS_GRAPH_TRANSCRIPT_TRANSCRIPT_PARTS_H_
#define VEXFS_GRAPH_TRANSCRIPT_TRANSCRIPT_PARTS_H_

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vexfs/graph.h"
#include "vexfs/transcript.h"

namespace vexfs::graph::transcript {

using nlohmann::json;

// One non-blank line of a transcript: its number in the file (1-based, for
// errors), its place among the messages (1-based, what keys use, so blank
// lines change no key) and its object.
struct Line {
  size_t number = 0;
  size_t seq = 0;
  json message{};
};

Status LineError(size_t line, const std::string& what);
// "YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM)" as nanoseconds since the epoch.
Result<TimeNs> ParseRfc3339(std::string_view text);
// The text blocks of a content array ({"type": "text", "text": ...}), joined by
// blank lines; "" for anything else.
std::string JoinedText(const json& content);
// `message` without `drop` members.
json FieldsWithout(const json& message, std::initializer_list<const char*> drop);

class BatchBuilder {
 public:
  BatchBuilder(std::string_view thread, TranscriptFormat format)
      : thread_(thread), format_(TranscriptFormatName(format)) {}

  // The node of the message on `line`: kind turn or tool_result, linked
  // replied_to the message before. `speaker` becomes its source.
  Result<GraphId> AddMessage(const Line& line, const std::string& kind, const std::string& text,
                             json transcript, const std::string& speaker);
  // A part of the message on `line` (a tool call or an Anthropic tool result),
  // keyed by `suffix`, linked from `from` by `edge`.
  Result<GraphId> AddPart(const Line& line, const std::string& suffix, const std::string& kind,
                          const std::string& text, json transcript, const GraphId& from,
                          const std::string& edge);
  void Link(const std::string& kind, const GraphId& from, const GraphId& to);
  GraphBatch Take() { return std::move(batch_); }

 private:
  Result<NodeSpec> Spec(const Line& line, const std::string& key, const std::string& kind,
                        const std::string& text, json transcript);

  std::string thread_;
  std::string format_;
  GraphBatch batch_;
  GraphId previous_;
};

// Parsed lines into a batch, per format.
Result<GraphBatch> OpenAiBatch(const std::vector<Line>& lines, std::string_view thread);
Result<GraphBatch> AnthropicBatch(const std::vector<Line>& lines, std::string_view thread);

// A message node's transcript object; kCorruption if it has none.
Result<json> TranscriptOf(const GraphNode& node);
// Rebuilds one message from its node, per format.
Result<json> OpenAiMessage(Graph& graph, const GraphNode& node, const GraphReadOptions& read);
Result<json> AnthropicMessage(Graph& graph, const GraphNode& node, const GraphReadOptions& read);

}  // namespace vexfs::graph::transcript

#endif  // VEXFS_GRAPH_TRANSCRIPT_TRANSCRIPT_PARTS_H_
