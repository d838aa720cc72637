// Reading a tool call's arguments by type.
#include "mcp/tool_args.h"

#include <cmath>

namespace vexfs::mcp {
namespace {

Status WrongType(const std::string& name, const char* what) {
  return Status::InvalidArgument("argument '" + name + "' must be " + what);
}

}  // namespace

const nlohmann::json* ToolArgs::Find(const std::string& name) {
  known_.insert(name);
  auto it = args_.find(name);
  if (it == args_.end() || it->is_null()) return nullptr;
  return &*it;
}

Result<std::string> ToolArgs::String(const std::string& name) {
  const nlohmann::json* v = Find(name);
  if (v == nullptr) return Status::InvalidArgument("argument '" + name + "' is required");
  if (!v->is_string()) return WrongType(name, "a string");
  return v->get<std::string>();
}

Result<std::optional<std::string>> ToolArgs::OptionalString(const std::string& name) {
  const nlohmann::json* v = Find(name);
  if (v == nullptr) return std::optional<std::string>();
  if (!v->is_string()) return WrongType(name, "a string");
  return std::optional<std::string>(v->get<std::string>());
}

Result<std::string> ToolArgs::StringOr(const std::string& name, const std::string& fallback) {
  VEXFS_ASSIGN_OR_RETURN(auto v, OptionalString(name));
  return v.value_or(fallback);
}

Result<bool> ToolArgs::Bool(const std::string& name, bool fallback) {
  const nlohmann::json* v = Find(name);
  if (v == nullptr) return fallback;
  if (!v->is_boolean()) return WrongType(name, "true or false");
  return v->get<bool>();
}

Result<int64_t> ToolArgs::Int(const std::string& name, int64_t fallback, int64_t min,
                              int64_t max) {
  const nlohmann::json* v = Find(name);
  if (v == nullptr) return fallback;
  std::string range = "an integer from " + std::to_string(min) + " to " + std::to_string(max);
  int64_t value = 0;
  if (v->is_number_unsigned()) {
    if (v->get<uint64_t>() > static_cast<uint64_t>(max)) return WrongType(name, range.c_str());
    value = static_cast<int64_t>(v->get<uint64_t>());
  } else if (v->is_number_integer()) {
    value = v->get<int64_t>();
  } else if (v->is_number_float()) {
    // 3.0 is an integer to JSON Schema; 3.5 is not. Out of the range, the
    // conversion below would be undefined, so check that first.
    double d = v->get<double>();
    if (!(d >= static_cast<double>(min) && d <= static_cast<double>(max)) || d != std::trunc(d)) {
      return WrongType(name, range.c_str());
    }
    value = static_cast<int64_t>(d);
  } else {
    return WrongType(name, range.c_str());
  }
  if (value < min || value > max) return WrongType(name, range.c_str());
  return value;
}

Result<std::string> ToolArgs::ObjectText(const std::string& name, const std::string& fallback) {
  const nlohmann::json* v = Find(name);
  if (v == nullptr) return fallback;
  if (!v->is_object()) return WrongType(name, "an object");
  return v->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Result<nlohmann::json> ToolArgs::Array(const std::string& name) {
  const nlohmann::json* v = Find(name);
  if (v == nullptr) return nlohmann::json::array();
  if (!v->is_array()) return WrongType(name, "an array");
  return *v;
}

Result<std::vector<std::string>> ToolArgs::StringList(const std::string& name) {
  const nlohmann::json* v = Find(name);
  std::vector<std::string> out;
  if (v == nullptr) return out;
  if (!v->is_array()) return WrongType(name, "an array of strings");
  for (const nlohmann::json& item : *v) {
    if (!item.is_string()) return WrongType(name, "an array of strings");
    out.push_back(item.get<std::string>());
  }
  return out;
}

Result<std::map<std::string, std::string>> ToolArgs::StringMap(const std::string& name) {
  const nlohmann::json* v = Find(name);
  std::map<std::string, std::string> out;
  if (v == nullptr) return out;
  if (!v->is_object()) return WrongType(name, "an object of strings");
  for (const auto& [key, value] : v->items()) {
    if (!value.is_string()) return WrongType(name + "." + key, "a string");
    out[key] = value.get<std::string>();
  }
  return out;
}

Status ToolArgs::RefuseUnknown() const {
  if (!args_.is_object()) return Status::InvalidArgument("the arguments must be an object");
  for (const auto& [key, value] : args_.items()) {
    if (!known_.count(key)) return Status::InvalidArgument("unknown argument '" + key + "'");
  }
  return Status::Ok();
}

}  // namespace vexfs::mcp
