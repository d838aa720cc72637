// What an MCP tool is here: its name, the description and input schema a model
// reads, its behaviour hints, and the handler that runs it against the served
// store. Tool groups (file_tools.cc, search_tool.cc, version_tools.cc) add theirs
// to a list; the session lists and calls them.
#ifndef VEXFS_MCP_TOOL_H_
#define VEXFS_MCP_TOOL_H_

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mcp/tool_args.h"
#include "vexfs/db.h"
#include "vexfs/index.h"
#include "vexfs/status.h"
#include "vexfs/store.h"

namespace vexfs::mcp {

// Bounds on what one call may return or write (docs/agents.md lists them).
inline constexpr uint64_t kDefaultReadBytes = 64 * 1024;
inline constexpr uint64_t kMaxReadBytes = 1024 * 1024;
inline constexpr uint64_t kMaxWriteBytes = 16 * 1024 * 1024;
inline constexpr size_t kMaxListEntries = 1000;
inline constexpr size_t kMaxSearchHits = 100;
inline constexpr size_t kMaxLogEntries = 1000;
inline constexpr size_t kMaxDiffEntries = 1000;

// The served store, shared by every tool call of a session: a vexfs::Db (with
// its background indexer, which every write wakes on its own) and the branch
// the tools work on.
class ServedStore {
 public:
  ServedStore(std::unique_ptr<Db> db, std::string branch);

  Db& db() { return *db_; }
  Store& store() { return db_->store(); }
  const std::string& branch() const { return branch_; }
  bool read_only() const { return db_->read_only(); }
  // The working tree the tools change and read ("at" empty).
  Result<std::unique_ptr<WorkingTree>> Tree() { return store().Tree(branch_); }
  // The tree to read: the working tree, or the snapshot `at`.
  Result<std::unique_ptr<TreeView>> View(const std::string& at) {
    return store().OpenView(at, branch_);
  }

 private:
  std::unique_ptr<Db> db_;
  std::string branch_;
};

struct ToolHints {
  bool read_only = false;    // changes nothing
  bool destructive = false;  // may overwrite or delete what exists
  bool idempotent = false;   // calling twice has no further effect
};

struct Tool {
  std::string name;
  std::string title;
  std::string description;
  nlohmann::json input_schema;  // a JSON Schema object
  ToolHints hints;
  // The structured result, or the error the caller sees as a tool error.
  std::function<Result<nlohmann::json>(ServedStore&, ToolArgs&)> run;
};

void AddFileTools(std::vector<Tool>* tools);     // file_tools.cc
void AddSearchTool(std::vector<Tool>* tools);    // search_tool.cc
void AddVersionTools(std::vector<Tool>* tools);  // version_tools.cc
void AddGraphTools(std::vector<Tool>* tools);    // graph_tools.cc

// A JSON Schema "object" with `properties` and the names in `required`; no other
// properties are allowed.
nlohmann::json ObjectSchema(nlohmann::json properties, std::vector<std::string> required = {});

}  // namespace vexfs::mcp

#endif  // VEXFS_MCP_TOOL_H_
