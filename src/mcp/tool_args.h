// A tool call's arguments, read by type with errors a model can act on: each
// names the argument and what it must be. Unknown arguments are refused too (a
// misspelt optional argument would otherwise be silently ignored).
#ifndef VEXFS_MCP_TOOL_ARGS_H_
#define VEXFS_MCP_TOOL_ARGS_H_

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "vexfs/status.h"

namespace vexfs::mcp {

class ToolArgs {
 public:
  explicit ToolArgs(nlohmann::json args) : args_(std::move(args)) {}

  Result<std::string> String(const std::string& name);  // required
  Result<std::optional<std::string>> OptionalString(const std::string& name);
  Result<std::string> StringOr(const std::string& name, const std::string& fallback);
  Result<bool> Bool(const std::string& name, bool fallback);
  // An integer in [min, max]; `fallback` when absent.
  Result<int64_t> Int(const std::string& name, int64_t fallback, int64_t min, int64_t max);
  // A JSON object, given back as compact text; `fallback` when absent.
  Result<std::string> ObjectText(const std::string& name, const std::string& fallback);
  // An array (of anything); empty when absent.
  Result<nlohmann::json> Array(const std::string& name);
  // An array of strings; empty when absent.
  Result<std::vector<std::string>> StringList(const std::string& name);
  // An object of string values.
  Result<std::map<std::string, std::string>> StringMap(const std::string& name);
  // kInvalidArgument naming the first argument no getter asked for. Call after
  // reading every argument the tool knows.
  Status RefuseUnknown() const;

 private:
  const nlohmann::json* Find(const std::string& name);

  nlohmann::json args_;
  std::set<std::string> known_;
};

}  // namespace vexfs::mcp

#endif  // VEXFS_MCP_TOOL_ARGS_H_
