// Parsing and answering JSON-RPC 2.0 messages.
#include "mcp/json_rpc.h"

namespace vexfs::mcp {
namespace {

RpcMessage Invalid(const nlohmann::json& id, int code, const std::string& message) {
  RpcMessage m;
  m.error_reply = RpcError(id, code, message);
  return m;
}

bool IsValidId(const nlohmann::json& id) {
  return id.is_string() || id.is_number_integer() || id.is_number_unsigned();
}

}  // namespace

RpcMessage ParseRpcMessage(std::string_view line) {
  nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Invalid(nullptr, kParseError, "the message is not valid JSON");
  if (j.is_array()) {
    return Invalid(nullptr, kInvalidRequest, "batches are not supported: send one message per line");
  }
  if (!j.is_object()) return Invalid(nullptr, kInvalidRequest, "a message must be a JSON object");
  nlohmann::json id = j.contains("id") ? j["id"] : nlohmann::json();
  if (j.contains("id") && !IsValidId(id)) {
    return Invalid(nullptr, kInvalidRequest, "\"id\" must be a string or an integer");
  }
  auto version = j.find("jsonrpc");
  if (version == j.end() || *version != "2.0") {
    return Invalid(id, kInvalidRequest, "\"jsonrpc\" must be \"2.0\"");
  }
  RpcMessage m;
  m.id = id;
  if (!j.contains("method")) {
    if (j.contains("id") && (j.contains("result") || j.contains("error"))) {
      m.kind = RpcMessage::Kind::kResponse;
      return m;
    }
    return Invalid(id, kInvalidRequest, "the message has no \"method\"");
  }
  if (!j["method"].is_string()) return Invalid(id, kInvalidRequest, "\"method\" must be a string");
  m.method = j["method"].get<std::string>();
  if (j.contains("params")) {
    if (!j["params"].is_object()) {
      return Invalid(id, kInvalidRequest, "\"params\" must be an object");
    }
    m.params = j["params"];
  }
  m.kind = j.contains("id") ? RpcMessage::Kind::kRequest : RpcMessage::Kind::kNotification;
  return m;
}

nlohmann::json RpcResult(const nlohmann::json& id, nlohmann::json result) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

nlohmann::json RpcError(const nlohmann::json& id, int code, const std::string& message) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

}  // namespace vexfs::mcp
