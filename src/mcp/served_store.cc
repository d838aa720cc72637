// The store a session serves, and the JSON Schema helper the tools share.
#include "mcp/tool.h"

namespace vexfs::mcp {

ServedStore::ServedStore(std::unique_ptr<Db> db, std::string branch)
    : db_(std::move(db)), branch_(std::move(branch)) {}

nlohmann::json ObjectSchema(nlohmann::json properties, std::vector<std::string> required) {
  nlohmann::json schema{{"type", "object"},
                        {"properties", properties.is_null() ? nlohmann::json::object() : properties},
                        {"additionalProperties", false}};
  if (!required.empty()) schema["required"] = required;
  return schema;
}

}  // namespace vexfs::mcp
