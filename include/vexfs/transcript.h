// Conversations in and out of the memory graph, in the two forms agents write
// them today: OpenAI chat messages (`role`, `content`, `name`, `tool_calls`
// with `id` and `function{name, arguments}`, `tool_call_id`) and Anthropic
// Messages (`content` blocks `text`, `tool_use`, `tool_result`), one JSON
// object a line, each with an optional `timestamp` (RFC 3339).
//
// Import makes each message a `turn` (a tool message in OpenAI's form a
// `tool_result`), each tool call a `tool_call` linked from its turn (`called`),
// each result a `tool_result` linked from its call (`returned`), and each
// message `replied_to` the one before; a timestamp is the node's valid time.
// Every node has a key derived from the thread and the message's place, so
// importing the same transcript twice adds nothing, and export writes back
// messages equal (as JSON values) to the ones imported. docs/graph.md gives the
// mapping in full.
//
// Thread-safety: pure functions, except ExportTranscript, which reads `graph`.
#ifndef VEXFS_TRANSCRIPT_H_
#define VEXFS_TRANSCRIPT_H_

#include <string>
#include <string_view>

#include "vexfs/graph.h"
#include "vexfs/status.h"

// The public API: exported from libvexfs.so, which is built with hidden visibility.
#pragma GCC visibility push(default)

namespace vexfs {

enum class TranscriptFormat { kOpenAI, kAnthropic };
// "openai" or "anthropic"; kInvalidArgument otherwise.
Result<TranscriptFormat> ParseTranscriptFormat(std::string_view name);
const char* TranscriptFormatName(TranscriptFormat format);

// The batch that imports `jsonl` into `thread` (not empty). Blank lines are
// skipped. kInvalidArgument naming the line (1-based) for a line that is not a
// JSON object, a message without a role, a tool result for a call no earlier
// message made, a timestamp that is not RFC 3339, or a part past a node's bounds.
Result<GraphBatch> TranscriptToBatch(std::string_view jsonl, TranscriptFormat format,
                                     std::string_view thread);

// The messages of `thread` that an import made, in their order, as JSON lines.
// kNotFound if the thread has none; kInvalidArgument if they were imported in
// the other format.
Result<std::string> ExportTranscript(Graph& graph, std::string_view thread, TranscriptFormat format,
                                     const GraphReadOptions& read = {});

}  // namespace vexfs

#pragma GCC visibility pop

#endif  // VEXFS_TRANSCRIPT_H_
