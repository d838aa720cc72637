// One MCP session: the lifecycle (initialize, then requests), the tools, the
// resources. It turns each incoming line into at most one reply and never
// stops on a bad message or a failing tool.
#ifndef VEXFS_MCP_SESSION_H_
#define VEXFS_MCP_SESSION_H_

#include <nlohmann/json.hpp>

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "mcp/json_rpc.h"
#include "mcp/tool.h"

namespace vexfs::mcp {

// Protocol versions this server speaks, newest first.
extern const std::vector<std::string> kProtocolVersions;

class McpSession {
 public:
  McpSession(ServedStore* served, std::ostream* log);

  // The reply to one message line, or nullopt when none is due (notifications
  // and responses).
  std::optional<nlohmann::json> Handle(std::string_view line);

 private:
  nlohmann::json Dispatch(const RpcMessage& request);
  nlohmann::json Initialize(const RpcMessage& request);
  nlohmann::json ListTools() const;
  nlohmann::json CallTool(const RpcMessage& request);
  nlohmann::json ToolResult(const Result<nlohmann::json>& result) const;
  const Tool* FindTool(const std::string& name) const;

  ServedStore* served_;
  std::ostream* log_;
  std::vector<Tool> tools_;  // those this session offers (no writing tool when read-only)
  std::vector<std::string> withheld_;  // writing tools a read-only session does not offer
  bool initialized_ = false;
  std::string protocol_;
};

}  // namespace vexfs::mcp

#endif  // VEXFS_MCP_SESSION_H_
