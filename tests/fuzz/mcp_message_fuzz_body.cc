// The MCP message fuzz body (see mcp_message_fuzz_body.h).
#include "fuzz/mcp_message_fuzz_body.h"

#include <nlohmann/json.hpp>

#include <set>

#include "mcp/json_rpc.h"
#include "mcp/tool_args.h"

namespace vexfs::mcp::fuzz {
namespace {

using nlohmann::json;

// Each getter on each argument: ok, or refused as an invalid argument.
std::string CheckArguments(const json& args) {
  if (!args.is_object()) return "";
  for (const auto& [key, value] : args.items()) {
    ToolArgs reader(args);
    Status results[] = {reader.String(key).status(), reader.OptionalString(key).status(),
                        reader.Bool(key, false).status(),
                        reader.Int(key, 0, INT64_MIN, INT64_MAX).status(),
                        reader.Int(key, 1, 1, 100).status(), reader.StringMap(key).status()};
    for (const Status& st : results) {
      if (!st.ok() && st.code() != StatusCode::kInvalidArgument) {
        return "argument '" + key + "' got " + st.ToString();
      }
    }
    if (!reader.RefuseUnknown().ok() && args.size() == 1) {
      return "the one argument read was called unknown";
    }
  }
  return "";
}

}  // namespace

std::string CheckMcpLine(std::string_view line, bool* request) {
  if (request != nullptr) *request = false;
  static const std::set<int> kCodes = {kParseError, kInvalidRequest};
  try {
    RpcMessage m = ParseRpcMessage(line);
    if (m.kind == RpcMessage::Kind::kInvalid) {
      if (!m.error_reply.contains("error")) return "an invalid message got no error reply";
      int code = m.error_reply["error"]["code"];
      if (!kCodes.count(code)) return "an invalid message got code " + std::to_string(code);
      (void)m.error_reply.dump(-1, ' ', false, json::error_handler_t::replace);
      return "";
    }
    if (m.kind == RpcMessage::Kind::kResponse) return "";
    if (m.method.empty() && line.find("\"method\"") == std::string_view::npos) {
      return "a request without a method was accepted";
    }
    if (!m.params.is_object()) return "params that are not an object were accepted";
    if (request != nullptr) *request = m.kind == RpcMessage::Kind::kRequest;
    std::string broken = CheckArguments(m.params);
    if (broken.empty() && m.params.contains("arguments")) broken = CheckArguments(m.params["arguments"]);
    if (!broken.empty()) return broken;
    (void)RpcResult(m.id, m.params).dump(-1, ' ', false, json::error_handler_t::replace);
    return "";
  } catch (const std::exception& e) {
    return std::string("an exception escaped: ") + e.what();
  }
}

std::vector<std::string> McpSeeds() {
  return {
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}})",
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"notes/a.md","offset":0,"length":65536}}})",
      R"({"jsonrpc":"2.0","id":"3","method":"tools/call","params":{"name":"search","arguments":{"query":"x","k":10,"where":{"topic":"boats"},"passages":true}}})",
      R"({"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"vexfs://files/a%20b.md"}})",
      R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
  };
}

}  // namespace vexfs::mcp::fuzz
