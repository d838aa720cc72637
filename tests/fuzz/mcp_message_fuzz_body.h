// What the MCP message fuzzer does with every input, shared with the regression
// test that replays seeds and saved inputs (mcp_message_fuzz_regression_test.cc).
// The decoders are those of the bytes any MCP client sends `vexfs mcp`: a line of
// JSON-RPC (src/mcp/json_rpc) and a tool call's arguments (src/mcp/tool_args).
#ifndef VEXFS_TESTS_FUZZ_MCP_MESSAGE_FUZZ_BODY_H_
#define VEXFS_TESTS_FUZZ_MCP_MESSAGE_FUZZ_BODY_H_

#include <string>
#include <string_view>
#include <vector>

namespace vexfs::mcp::fuzz {

// Classifies `line` as the server does. A malformed line must get a JSON-RPC
// error reply with one of the documented codes; a request's params are read as
// tool arguments by every typed getter, which must accept or refuse each with
// kInvalidArgument. Every reply must encode. Returns "" when all holds, else what
// broke. `request` (when not null) says whether it was a well-formed request.
std::string CheckMcpLine(std::string_view line, bool* request = nullptr);

// Well-formed requests: initialize, tools/call with every kind of argument,
// resources/read, a notification.
std::vector<std::string> McpSeeds();

}  // namespace vexfs::mcp::fuzz

#endif  // VEXFS_TESTS_FUZZ_MCP_MESSAGE_FUZZ_BODY_H_
