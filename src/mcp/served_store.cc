// The store a session serves, and the JSON Schema helper the tools share.
#include "mcp/tool.h"

namespace vexfs::mcp {

ServedStore::ServedStore(std::unique_ptr<Store> store, std::string branch, bool read_only)
    : store_(std::move(store)), branch_(std::move(branch)), read_only_(read_only) {}

ServedStore::~ServedStore() {
  if (index_) index_->StopBackground();
}

Result<Index*> ServedStore::index() {
  std::lock_guard<std::mutex> lock(index_mu_);
  if (!index_) {
    VEXFS_ASSIGN_OR_RETURN(index_, Index::Open(store_.get()));
    if (!read_only_) index_->StartBackground();
  }
  return index_.get();
}

void ServedStore::NotifyWrite() {
  std::lock_guard<std::mutex> lock(index_mu_);
  if (index_) index_->Notify();
}

nlohmann::json ObjectSchema(nlohmann::json properties, std::vector<std::string> required) {
  nlohmann::json schema{{"type", "object"},
                        {"properties", properties.is_null() ? nlohmann::json::object() : properties},
                        {"additionalProperties", false}};
  if (!required.empty()) schema["required"] = required;
  return schema;
}

}  // namespace vexfs::mcp
