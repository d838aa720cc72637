// Answering MCP requests: lifecycle, tools and resources.
#include "mcp/session.h"

#include <algorithm>

#include "mcp/resources.h"
#include "vexfs/version.h"

namespace vexfs::mcp {
namespace {

using nlohmann::json;

// structuredContent (a tool's result as JSON beside its text) came with this one.
constexpr std::string_view kStructuredSince = "2025-06-18";

json Annotations(const Tool& tool) {
  return {{"title", tool.title},
          {"readOnlyHint", tool.hints.read_only},
          {"destructiveHint", tool.hints.destructive},
          {"idempotentHint", tool.hints.idempotent},
          {"openWorldHint", false}};
}

json TextContent(const std::string& text) {
  return json::array({{{"type", "text"}, {"text", text}}});
}

std::string Dump(const json& j) {
  // Names in a store are bytes; one that is not UTF-8 must not stop the reply.
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

const std::vector<std::string> kProtocolVersions = {"2025-11-25", "2025-06-18", "2025-03-26",
                                                    "2024-11-05"};

McpSession::McpSession(ServedStore* served, std::ostream* log) : served_(served), log_(log) {
  std::vector<Tool> all;
  AddFileTools(&all);
  AddSearchTool(&all);
  AddVersionTools(&all);
  AddGraphTools(&all);
  for (Tool& tool : all) {
    if (served_->read_only() && !tool.hints.read_only) {
      withheld_.push_back(tool.name);
    } else {
      tools_.push_back(std::move(tool));
    }
  }
}

std::optional<json> McpSession::Handle(std::string_view line) {
  RpcMessage message = ParseRpcMessage(line);
  switch (message.kind) {
    case RpcMessage::Kind::kInvalid:
      return message.error_reply;
    case RpcMessage::Kind::kResponse:  // this server sends no requests
    case RpcMessage::Kind::kNotification:  // initialized, cancelled: nothing to answer
      return std::nullopt;
    case RpcMessage::Kind::kRequest:
      break;
  }
  try {
    return Dispatch(message);
  } catch (const std::exception& e) {  // the JSON library's; the core never throws
    *log_ << "vexfs mcp: " << message.method << ": " << e.what() << std::endl;
    return RpcError(message.id, kInternalError, std::string("internal error: ") + e.what());
  }
}

json McpSession::Dispatch(const RpcMessage& request) {
  const std::string& method = request.method;
  if (method == "initialize") return Initialize(request);
  if (method == "ping") return RpcResult(request.id, json::object());
  if (!initialized_) {
    return RpcError(request.id, kInvalidRequest, "the session is not initialized: send initialize first");
  }
  if (method == "tools/list") return RpcResult(request.id, ListTools());
  if (method == "tools/call") return CallTool(request);
  if (method == "resources/templates/list") return RpcResult(request.id, ResourceTemplates());
  if (method == "resources/list" || method == "resources/read") {
    const json& p = request.params;
    std::string key = method == "resources/list" ? "cursor" : "uri";
    if (p.contains(key) && !p[key].is_string()) {
      return RpcError(request.id, kInvalidParams, "\"" + key + "\" must be a string");
    }
    if (method == "resources/read" && !p.contains("uri")) {
      return RpcError(request.id, kInvalidParams, "resources/read needs \"uri\"");
    }
    std::string value = p.value(key, "");
    auto result = method == "resources/list" ? ListResources(*served_, value)
                                             : ReadResource(*served_, value);
    if (!result.ok()) {
      // MCP's code for a resource that is not there; other failures are the
      // request's own (a bad cursor or URI) or the store's.
      int code = result.status().IsNotFound() ? -32002 : kInvalidParams;
      return RpcError(request.id, code, result.status().ToString());
    }
    return RpcResult(request.id, *result);
  }
  return RpcError(request.id, kMethodNotFound, "unknown method '" + method + "'");
}

json McpSession::Initialize(const RpcMessage& request) {
  const json& p = request.params;
  if (!p.contains("protocolVersion") || !p["protocolVersion"].is_string()) {
    return RpcError(request.id, kInvalidParams, "initialize needs \"protocolVersion\" (a string)");
  }
  std::string asked = p["protocolVersion"];
  // The client's version when this server speaks it, else this server's newest
  // (the client then decides whether it can go on).
  bool known = std::find(kProtocolVersions.begin(), kProtocolVersions.end(), asked) !=
               kProtocolVersions.end();
  protocol_ = known ? asked : kProtocolVersions.front();
  initialized_ = true;
  json result{
      {"protocolVersion", protocol_},
      {"capabilities",
       {{"tools", {{"listChanged", false}}},
        {"resources", {{"subscribe", false}, {"listChanged", false}}}}},
      {"serverInfo", {{"name", "vexfs"}, {"title", "VexFS agent memory"}, {"version", Version()}}},
      {"instructions",
       "This is the agent's durable, versioned memory store (branch '" + served_->branch() +
           "'). Write what should outlive this session as files; find it again with search "
           "(by meaning and by words); snapshot before risky changes and restore or diff "
           "later."}};
  return RpcResult(request.id, result);
}

json McpSession::ListTools() const {
  json tools = json::array();
  for (const Tool& tool : tools_) {
    tools.push_back({{"name", tool.name},
                     {"title", tool.title},
                     {"description", tool.description},
                     {"inputSchema", tool.input_schema},
                     {"annotations", Annotations(tool)}});
  }
  return {{"tools", tools}};
}

const Tool* McpSession::FindTool(const std::string& name) const {
  for (const Tool& tool : tools_) {
    if (tool.name == name) return &tool;
  }
  return nullptr;
}

json McpSession::CallTool(const RpcMessage& request) {
  const json& p = request.params;
  if (!p.contains("name") || !p["name"].is_string()) {
    return RpcError(request.id, kInvalidParams, "tools/call needs \"name\" (a string)");
  }
  std::string name = p["name"];
  const Tool* tool = FindTool(name);
  if (tool == nullptr) {
    bool withheld = std::find(withheld_.begin(), withheld_.end(), name) != withheld_.end();
    return RpcError(request.id, kInvalidParams,
                    withheld ? "tool '" + name + "' changes the store, and this server is read-only"
                             : "unknown tool '" + name + "'");
  }
  json args = p.contains("arguments") && !p["arguments"].is_null() ? p["arguments"] : json::object();
  if (!args.is_object()) return RpcResult(request.id, ToolResult(Status::InvalidArgument("the arguments must be an object")));
  ToolArgs reader(std::move(args));
  return RpcResult(request.id, ToolResult(tool->run(*served_, reader)));
}

// A tool's outcome as MCP shows it: the JSON as text (every client reads it),
// also as structuredContent where the protocol has it; failures as tool errors
// the model can read and act on.
json McpSession::ToolResult(const Result<json>& result) const {
  if (!result.ok()) {
    return {{"content", TextContent(result.status().ToString())}, {"isError", true}};
  }
  json out{{"content", TextContent(Dump(*result))}, {"isError", false}};
  if (protocol_ >= kStructuredSince && result->is_object()) out["structuredContent"] = *result;
  return out;
}

}  // namespace vexfs::mcp
