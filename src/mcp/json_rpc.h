// JSON-RPC 2.0 as MCP uses it over stdio: one message per line, requests (with
// an id), notifications (without) and responses. Parsing classifies a line and
// names what is wrong with it; the builders make the replies.
#ifndef VEXFS_MCP_JSON_RPC_H_
#define VEXFS_MCP_JSON_RPC_H_

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace vexfs::mcp {

// The error codes of JSON-RPC 2.0 (section 5.1).
enum RpcErrorCode : int {
  kParseError = -32700,
  kInvalidRequest = -32600,
  kMethodNotFound = -32601,
  kInvalidParams = -32602,
  kInternalError = -32603,
};

struct RpcMessage {
  enum class Kind { kRequest, kNotification, kResponse, kInvalid };
  Kind kind = Kind::kInvalid;
  nlohmann::json id;  // requests: a string or an integer; null otherwise
  std::string method;
  nlohmann::json params = nlohmann::json::object();
  // kInvalid: the reply to send (a parse or invalid-request error).
  nlohmann::json error_reply;
};

// Classifies one line. Responses (a client answering a server request) and
// malformed messages are told apart; a malformed one carries its error reply.
RpcMessage ParseRpcMessage(std::string_view line);

nlohmann::json RpcResult(const nlohmann::json& id, nlohmann::json result);
nlohmann::json RpcError(const nlohmann::json& id, int code, const std::string& message);

}  // namespace vexfs::mcp

#endif  // VEXFS_MCP_JSON_RPC_H_
