// The MCP version tools: snapshots, log, diff, restore and branches.
#include "mcp/tool.h"
#include "vexfs/json.h"

namespace vexfs::mcp {
namespace {

using nlohmann::json;

Result<json> CreateSnapshot(ServedStore& served, ToolArgs& args) {
  VEXFS_ASSIGN_OR_RETURN(std::string name, args.String("name"));
  VEXFS_ASSIGN_OR_RETURN(std::string message, args.StringOr("message", ""));
  VEXFS_ASSIGN_OR_RETURN(auto meta, args.StringMap("meta"));
  VEXFS_RETURN_IF_ERROR(args.RefuseUnknown());
  VEXFS_ASSIGN_OR_RETURN(CommitInfo c, served.store().CreateSnapshot(name, message, meta, served.branch()));
  return CommitJson(c);
}

Result<json> ListSnapshots(ServedStore& served, ToolArgs& args) {
  VEXFS_RETURN_IF_ERROR(args.RefuseUnknown());
  VEXFS_ASSIGN_OR_RETURN(auto snapshots, served.store().ListSnapshots());
  json out = json::array();
  for (const CommitInfo& c : snapshots) out.push_back(CommitJson(c));
  return json{{"snapshots", out}};
}

Result<json> Log(ServedStore& served, ToolArgs& args) {
  VEXFS_ASSIGN_OR_RETURN(std::string from, args.StringOr("from", ""));
  VEXFS_ASSIGN_OR_RETURN(int64_t limit, args.Int("limit", 50, 1, kMaxLogEntries));
  VEXFS_RETURN_IF_ERROR(args.RefuseUnknown());
  std::string start = from.empty() ? served.branch() : from;
  VEXFS_ASSIGN_OR_RETURN(auto commits, served.store().Log(start, static_cast<size_t>(limit)));
  json out = json::array();
  for (const CommitInfo& c : commits) out.push_back(CommitJson(c));
  return json{{"commits", out}};
}

// The store diffs "WORKING" as the working tree of the branch HEAD names; a
// session serving another branch must not be shown that tree as its own.
Status CheckWorkingSide(ServedStore& served, const std::string& side) {
  if (side != kWorkingName) return Status::Ok();
  VEXFS_ASSIGN_OR_RETURN(std::string current, served.store().CurrentBranch());
  if (current == served.branch()) return Status::Ok();
  return Status::NotSupported("WORKING is the working tree of branch '" + current +
                              "', not of the served branch '" + served.branch() +
                              "': take a snapshot and diff snapshots");
}

Result<json> Diff(ServedStore& served, ToolArgs& args) {
  VEXFS_ASSIGN_OR_RETURN(std::string from, args.String("from"));
  VEXFS_ASSIGN_OR_RETURN(std::string to, args.StringOr("to", std::string(kWorkingName)));
  VEXFS_RETURN_IF_ERROR(args.RefuseUnknown());
  VEXFS_RETURN_IF_ERROR(CheckWorkingSide(served, from));
  VEXFS_RETURN_IF_ERROR(CheckWorkingSide(served, to));
  VEXFS_ASSIGN_OR_RETURN(auto entries, served.store().Diff(from, to));
  json out = json::array();
  for (const DiffEntry& e : entries) {
    if (out.size() == kMaxDiffEntries) break;
    out.push_back(DiffEntryJson(e));
  }
  return json{{"from", from}, {"to", to}, {"changes", out},
              {"total", entries.size()}, {"truncated", entries.size() > kMaxDiffEntries}};
}

Result<json> Restore(ServedStore& served, ToolArgs& args) {
  VEXFS_ASSIGN_OR_RETURN(std::string snapshot, args.String("snapshot"));
  VEXFS_RETURN_IF_ERROR(args.RefuseUnknown());
  VEXFS_RETURN_IF_ERROR(served.store().Restore(snapshot, served.branch()));
  return json{{"restored", snapshot}, {"branch", served.branch()}};
}

Result<json> CreateBranch(ServedStore& served, ToolArgs& args) {
  VEXFS_ASSIGN_OR_RETURN(std::string name, args.String("name"));
  VEXFS_ASSIGN_OR_RETURN(auto from, args.OptionalString("from_snapshot"));
  VEXFS_RETURN_IF_ERROR(args.RefuseUnknown());
  VEXFS_RETURN_IF_ERROR(served.store().CreateBranch(name, from, served.branch()));
  return json{{"branch", name}, {"from_snapshot", from ? json(*from) : json()}};
}

Result<json> ListBranches(ServedStore& served, ToolArgs& args) {
  VEXFS_RETURN_IF_ERROR(args.RefuseUnknown());
  VEXFS_ASSIGN_OR_RETURN(auto branches, served.store().ListBranches());
  json out = json::array();
  for (const BranchInfo& b : branches) out.push_back(BranchJson(b));
  return json{{"branches", out}, {"served", served.branch()}};
}

json Text(const char* description) { return {{"type", "string"}, {"description", description}}; }

}  // namespace

void AddVersionTools(std::vector<Tool>* tools) {
  tools->push_back(
      {"snapshot_create", "Take a snapshot",
       "Snapshot the whole working tree (files and metadata, atomically) under a unique name, "
       "like a commit: what the agent knew at this point. Search, read and diff it later with "
       "its name; restore returns to it.",
       ObjectSchema({{"name", Text("Unique snapshot name: letters, digits, . _ -")},
                     {"message", Text("Why this snapshot was taken")},
                     {"meta", {{"type", "object"}, {"additionalProperties", {{"type", "string"}}}}}},
                    {"name"}),
       {},
       CreateSnapshot});
  tools->push_back({"snapshot_list", "List snapshots", "Every named snapshot, oldest first.",
                    ObjectSchema({}), {.read_only = true, .idempotent = true}, ListSnapshots});
  tools->push_back(
      {"log", "Show history",
       "Snapshots reachable from the served branch's head (or from a snapshot), newest first.",
       ObjectSchema({{"from", Text("Start at this snapshot or branch (default: the served branch)")},
                     {"limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", kMaxLogEntries}}}}),
       {.read_only = true, .idempotent = true},
       Log});
  tools->push_back(
      {"diff", "Compare versions",
       "What changed from one snapshot to another, or to the working tree (\"WORKING\", the "
       "default 'to'): added, removed, modified and renamed paths. At most 1000 changes.",
       ObjectSchema({{"from", Text("Snapshot name or id, or WORKING")},
                     {"to", Text("Snapshot name or id, or WORKING (default)")}},
                    {"from"}),
       {.read_only = true, .idempotent = true},
       Diff});
  tools->push_back(
      {"restore", "Restore a snapshot",
       "Make the served branch's working tree exactly the snapshot's: files changed or made "
       "since are replaced or removed. Snapshot first to keep the present.",
       ObjectSchema({{"snapshot", Text("Snapshot name or id")}}, {"snapshot"}),
       {.destructive = true, .idempotent = true},
       Restore});
  tools->push_back(
      {"branch_create", "Create a branch",
       "A new branch from a snapshot, or (without one) a copy of the served branch's working "
       "tree.",
       ObjectSchema({{"name", Text("New branch name")},
                     {"from_snapshot", Text("Snapshot to start from")}},
                    {"name"}),
       {},
       CreateBranch});
  tools->push_back({"branch_list", "List branches", "Every branch, with its head and the served one.",
                    ObjectSchema({}), {.read_only = true, .idempotent = true}, ListBranches});
}

}  // namespace vexfs::mcp
