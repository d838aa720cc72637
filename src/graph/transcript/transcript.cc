// Transcript import and export (vexfs/transcript.h): splitting JSON lines and
// ordering a thread's messages; each form's mapping is in its own file.
#include "vexfs/transcript.h"

#include <algorithm>

#include "graph/transcript/transcript_parts.h"

namespace vexfs {

using graph::transcript::json;
using graph::transcript::Line;
using graph::transcript::LineError;

Result<TranscriptFormat> ParseTranscriptFormat(std::string_view name) {
  if (name == "openai") return TranscriptFormat::kOpenAI;
  if (name == "anthropic") return TranscriptFormat::kAnthropic;
  return Status::InvalidArgument("transcript format '" + std::string(name) + "' is not openai or anthropic");
}

const char* TranscriptFormatName(TranscriptFormat format) {
  return format == TranscriptFormat::kOpenAI ? "openai" : "anthropic";
}

Result<GraphBatch> TranscriptToBatch(std::string_view jsonl, TranscriptFormat format, std::string_view thread) {
  if (thread.empty()) return Status::InvalidArgument("a transcript is imported into a thread: name one");
  std::vector<Line> lines;
  size_t number = 0, seq = 0;
  while (!jsonl.empty()) {
    size_t end = jsonl.find('\n');
    std::string_view text = jsonl.substr(0, end);
    jsonl.remove_prefix(end == std::string_view::npos ? jsonl.size() : end + 1);
    ++number;
    if (text.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    json message = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (message.is_discarded() || !message.is_object()) return LineError(number, "not a JSON object");
    lines.push_back(Line{number, ++seq, std::move(message)});
  }
  if (format == TranscriptFormat::kOpenAI) return graph::transcript::OpenAiBatch(lines, thread);
  return graph::transcript::AnthropicBatch(lines, thread);
}

namespace {

Result<std::string> ExportMessages(Graph& graph, std::string_view thread, TranscriptFormat format,
                                   const GraphReadOptions& read) {
  VEXFS_ASSIGN_OR_RETURN(std::vector<GraphNode> nodes, graph.Nodes({.thread = std::string(thread), .read = read}));
  std::vector<std::pair<size_t, const GraphNode*>> messages;
  for (const GraphNode& node : nodes) {
    auto t = graph::transcript::TranscriptOf(node);
    if (!t.ok() || !t->contains("seq")) continue;  // a part, or not imported
    if (t->value("format", "") != TranscriptFormatName(format)) {
      return Status::InvalidArgument("thread '" + std::string(thread) + "' was imported as " +
                                     t->value("format", std::string("?")) + ", not " + TranscriptFormatName(format));
    }
    messages.emplace_back((*t)["seq"].get<size_t>(), &node);
  }
  if (messages.empty()) return Status::NotFound("thread '" + std::string(thread) + "' has no imported messages");
  std::sort(messages.begin(), messages.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out;
  for (const auto& [seq, node] : messages) {
    Result<json> msg = format == TranscriptFormat::kOpenAI
                           ? graph::transcript::OpenAiMessage(graph, *node, read)
                           : graph::transcript::AnthropicMessage(graph, *node, read);
    if (!msg.ok()) return msg.status();
    out += msg->dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  }
  return out;
}

}  // namespace

Result<std::string> ExportTranscript(Graph& graph, std::string_view thread, TranscriptFormat format,
                                     const GraphReadOptions& read) {
  // Properties are anyone's JSON: a node with a "transcript" member of the wrong
  // shape must be an error, not a thrown exception.
  try {
    return ExportMessages(graph, thread, format, read);
  } catch (const json::exception& e) {
    return Status::Corruption("thread '" + std::string(thread) + "' holds a message node that is not a transcript's: " +
                              e.what());
  }
}

}  // namespace vexfs
