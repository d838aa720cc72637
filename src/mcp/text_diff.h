// A unified diff of two texts (the edit tool's preview), computed by dtl.
#ifndef VEXFS_MCP_TEXT_DIFF_H_
#define VEXFS_MCP_TEXT_DIFF_H_

#include <string>
#include <string_view>

namespace vexfs::mcp {

// "--- a/PATH", "+++ b/PATH" and the hunks with three lines of context; empty
// when the texts are equal.
std::string UnifiedDiff(std::string_view path, std::string_view before, std::string_view after);

}  // namespace vexfs::mcp

#endif  // VEXFS_MCP_TEXT_DIFF_H_
