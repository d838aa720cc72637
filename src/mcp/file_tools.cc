// The MCP file tools: read, write, edit, list, stat, mkdir, move, delete.
#include <deque>

#include "common/base64.h"
#include "common/utf8.h"
#include "mcp/text_diff.h"
#include "mcp/tool.h"
#include "vexfs/json.h"
#include "vexfs/local_files.h"
#include "vexfs/paths.h"
#include "vexfs/tree_ops.h"

namespace vexfs::mcp {
namespace {

using nlohmann::json;

json PathProperty(const char* what) { return {{"type", "string"}, {"description", what}}; }

json AtProperty() {
  return {{"type", "string"},
          {"description", "Read this snapshot (name or commit id) instead of the working tree"}};
}

// `bytes` as JSON text where it is UTF-8 (a character cut at the end of a
// partial read is left for the next read), else as base64.
struct Encoded {
  std::string encoding;
  std::string content;
  uint64_t length = 0;  // bytes of the file the content covers
};

Encoded EncodeContent(std::string_view bytes, bool more_follows) {
  size_t whole = more_follows ? CompleteUtf8Prefix(bytes) : bytes.size();
  std::string_view text = bytes.substr(0, whole);
  if ((whole > 0 || bytes.empty()) && IsValidUtf8(text)) {
    return {"utf8", std::string(text), whole};
  }
  return {"base64", EncodeBase64(bytes), bytes.size()};
}

Result<json> ReadFile(ServedStore& served, ToolArgs& args) {
  VEXFS_ASSIGN_OR_RETURN(std::string path, args.String("path"));
  VEXFS_ASSIGN_OR_RETURN(std::string at, args.StringOr("at", ""));
  VEXFS_ASSIGN_OR_RETURN(int64_t offset, args.Int("offset", 0, 0, INT64_MAX));
  VEXFS_ASSIGN_OR_RETURN(int64_t length, args.Int("length", kDefaultReadBytes, 1, kMaxReadBytes));
  VEXFS_RETURN_IF_ERROR(args.RefuseUnknown());
  VEXFS_ASSIGN_OR_RETURN(auto view, served.View(at));
  VEXFS_ASSIGN_OR_RETURN(Attributes attr, view->Stat(path));
  if (attr.type == FileType::kDirectory) {
    return Status::IsDirectory("'" + path + "' is a directory: list it with list_directory");
  }
  VEXFS_RETURN_IF_ERROR(RequireRegularFile(*view, path, attr));
  VEXFS_ASSIGN_OR_RETURN(std::string bytes, view->Read(path, offset, length));
  uint64_t end = static_cast<uint64_t>(offset) + bytes.size();
  Encoded out = EncodeContent(bytes, end < attr.size);
  uint64_t next = static_cast<uint64_t>(offset) + out.length;
  json result{{"path", path},          {"size", attr.size},     {"offset", offset},
              {"length", out.length},  {"encoding", out.encoding}, {"content", out.content},
              {"truncated", next < attr.size}};
  if (next < attr.size) result["next_offset"] = next;
  return result;
}

Result<std::string> DecodeContent(const std::string& content, const std::string& encoding) {
  if (encoding == "utf8") return content;
  if (encoding == "base64") return DecodeBase64(content);
  return Status::InvalidArgument("argument 'encoding' must be \"utf8\" or \"base64\"");
}

Result<json> WriteFile(ServedStore& served, ToolArgs& args) {
  VEXFS_ASSIGN_OR_RETURN(std::string path, args.String("path"));
  VEXFS_ASSIGN_OR_RETURN(std::string content, args.String("content"));
  VEXFS_ASSIGN_OR_RETURN(std::string encoding, args.StringOr("encoding", "utf8"));
  VEXFS_ASSIGN_OR_RETURN(bool parents, args.Bool("create_parents", true));
  VEXFS_RETURN_IF_ERROR(args.RefuseUnknown());
  VEXFS_ASSIGN_OR_RETURN(std::string data, DecodeContent(content, encoding));
  if (data.size() > kMaxWriteBytes) {
    return Status::InvalidArgument("the content is " + std::to_string(data.size()) +
                                   " bytes; one write takes at most " +
                                   std::to_string(kMaxWriteBytes));
  }
  VEXFS_ASSIGN_OR_RETURN(auto tree, served.Tree());
  bool created = false;
  Attributes attr;
  VEXFS_RETURN_IF_ERROR(tree->Edit([&](TreeEditor& ed) -> Status {
    created = ed.ResolvePath(path).status().IsNotFound();
    if (!parents) VEXFS_RETURN_IF_ERROR(ResolveParentDir(ed, path).status());
    VEXFS_ASSIGN_OR_RETURN(attr, ed.PutFile(path, data, CallerOwnedNode(0644)));
    return Status::Ok();
  }));
  return json{{"path", path}, {"size", attr.size}, {"created", created}};
}

// Non-overlapping occurrences of `needle` in `text`.
size_t CountOccurrences(std::string_view text, std::string_view needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string_view::npos;
       at = text.find(needle, at + needle.size())) {
    ++n;
  }
  return n;
}

std::string ReplaceAll(std::string_view text, std::string_view from, std::string_view to) {
  std::string out;
  size_t start = 0;
  for (size_t at = text.find(from); at != std::string_view::npos; at = text.find(from, start)) {
    out.append(text.substr(start, at - start)).append(to);
    start = at + from.size();
  }
  out.append(text.substr(start));
  return out;
}

struct EditPlan {
  std::string path, old_text, new_text;
  int64_t expected = 1;
  bool dry_run = false;
};

struct PlannedEdit {
  uint64_t ino = 0;
  std::string before, after;
};

// Reads the file in `ed`, checks the replacement and returns the new content.
Result<PlannedEdit> PlanEdit(TreeEditor& ed, const EditPlan& plan) {
  VEXFS_ASSIGN_OR_RETURN(uint64_t ino, ed.ResolvePath(plan.path));
  VEXFS_ASSIGN_OR_RETURN(Attributes attr, ed.GetAttr(ino));
  if (attr.type != FileType::kRegular) {
    return Status::InvalidArgument("'" + plan.path + "' is not a regular file");
  }
  if (attr.size > kMaxWriteBytes) {
    return Status::InvalidArgument("'" + plan.path + "' is " + std::to_string(attr.size) +
                                   " bytes; edit_file edits files of at most " +
                                   std::to_string(kMaxWriteBytes));
  }
  VEXFS_ASSIGN_OR_RETURN(std::string before, ed.Read(ino, 0, attr.size));
  if (!IsValidUtf8(before)) return Status::InvalidArgument("'" + plan.path + "' is not UTF-8 text");
  size_t found = CountOccurrences(before, plan.old_text);
  if (found != static_cast<size_t>(plan.expected)) {
    return Status::InvalidArgument(
        "old_text occurs " + std::to_string(found) + " time" + (found == 1 ? "" : "s") + " in '" +
        plan.path + "', not " + std::to_string(plan.expected) +
        (found == 0 ? "; it must match the file exactly, whitespace included" :
                      "; give more context to make it unique, or set expected_replacements"));
  }
  std::string after = ReplaceAll(before, plan.old_text, plan.new_text);
  return PlannedEdit{ino, std::move(before), std::move(after)};
}

Result<json> EditFile(ServedStore& served, ToolArgs& args) {
  EditPlan plan;
  VEXFS_ASSIGN_OR_RETURN(plan.path, args.String("path"));
  VEXFS_ASSIGN_OR_RETURN(plan.old_text, args.String("old_text"));
  VEXFS_ASSIGN_OR_RETURN(plan.new_text, args.String("new_text"));
  VEXFS_ASSIGN_OR_RETURN(plan.expected, args.Int("expected_replacements", 1, 1, 100000));
  VEXFS_ASSIGN_OR_RETURN(plan.dry_run, args.Bool("dry_run", false));
  VEXFS_RETURN_IF_ERROR(args.RefuseUnknown());
  if (plan.old_text.empty()) return Status::InvalidArgument("argument 'old_text' must not be empty");
  VEXFS_ASSIGN_OR_RETURN(auto tree, served.Tree());
  std::string before, after;
  // Read, check and write in one transaction: no other writer can slip between.
  auto apply = [&](TreeEditor& ed) -> Status {
    VEXFS_ASSIGN_OR_RETURN(PlannedEdit planned, PlanEdit(ed, plan));
    before = std::move(planned.before);
    after = std::move(planned.after);
    return plan.dry_run ? Status::Ok() : ed.ReplaceContent(planned.ino, after);
  };
  VEXFS_RETURN_IF_ERROR(plan.dry_run ? tree->View(apply) : tree->Edit(apply));
  return json{{"path", plan.path},
              {"replacements", plan.expected},
              {"dry_run", plan.dry_run},
              {"size", after.size()},
              {"diff", UnifiedDiff(plan.path, before, after)}};
}

json EntryJson(const std::string& path, const Attributes& attr) {
  json j = AttributesJson(attr);
  j["path"] = path;
  return j;
}

Result<json> ListDirectory(ServedStore& served, ToolArgs& args) {
  VEXFS_ASSIGN_OR_RETURN(std::string path, args.StringOr("path", ""));
  VEXFS_ASSIGN_OR_RETURN(std::string at, args.StringOr("at", ""));
  VEXFS_ASSIGN_OR_RETURN(bool recursive, args.Bool("recursive", false));
  VEXFS_RETURN_IF_ERROR(args.RefuseUnknown());
  VEXFS_ASSIGN_OR_RETURN(std::string root, CanonicalPath(path));
  VEXFS_ASSIGN_OR_RETURN(auto view, served.View(at));
  json entries = json::array();
  std::deque<std::string> dirs{root};
  bool truncated = false;
  while (!dirs.empty() && !truncated) {
    std::string dir = dirs.front();
    dirs.pop_front();
    VEXFS_ASSIGN_OR_RETURN(auto listed, view->List(dir));
    for (const DirEntry& e : listed) {
      if (entries.size() == kMaxListEntries) {
        truncated = true;
        break;
      }
      std::string child = JoinPath(dir, e.name);
      entries.push_back(EntryJson(child, e.attr));
      if (recursive && e.attr.type == FileType::kDirectory) dirs.push_back(child);
    }
  }
  return json{{"path", root}, {"entries", entries}, {"truncated", truncated}};
}

Result<json> StatPath(ServedStore& served, ToolArgs& args) {
  VEXFS_ASSIGN_OR_RETURN(std::string path, args.String("path"));
  VEXFS_ASSIGN_OR_RETURN(std::string at, args.StringOr("at", ""));
  VEXFS_RETURN_IF_ERROR(args.RefuseUnknown());
  VEXFS_ASSIGN_OR_RETURN(auto view, served.View(at));
  VEXFS_ASSIGN_OR_RETURN(Attributes attr, view->Stat(path));
  return EntryJson(path, attr);
}

// Runs `change` in one edit of the served tree and reports `done`.
Result<json> Change(ServedStore& served, const std::function<Status(TreeEditor&)>& change,
                    json done) {
  VEXFS_ASSIGN_OR_RETURN(auto tree, served.Tree());
  VEXFS_RETURN_IF_ERROR(tree->Edit(change));
  return done;
}

Result<json> MakeDir(ServedStore& served, ToolArgs& args) {
  VEXFS_ASSIGN_OR_RETURN(std::string path, args.String("path"));
  VEXFS_ASSIGN_OR_RETURN(bool parents, args.Bool("parents", true));
  VEXFS_RETURN_IF_ERROR(args.RefuseUnknown());
  return Change(served, [&](TreeEditor& ed) { return MakeDirectory(ed, path, parents, CallerOwnedNode(0755)); },
                json{{"path", path}});
}

Result<json> MoveFile(ServedStore& served, ToolArgs& args) {
  VEXFS_ASSIGN_OR_RETURN(std::string from, args.String("from"));
  VEXFS_ASSIGN_OR_RETURN(std::string to, args.String("to"));
  VEXFS_ASSIGN_OR_RETURN(bool overwrite, args.Bool("overwrite", false));
  VEXFS_RETURN_IF_ERROR(args.RefuseUnknown());
  // `to` in the reply is where it is now: "d/x.md" for a move into directory "d".
  std::string moved_to;
  auto move = [&](TreeEditor& ed) { return MovePath(ed, from, to, overwrite, &moved_to); };
  VEXFS_RETURN_IF_ERROR(Change(served, move, json::object()).status());
  VEXFS_ASSIGN_OR_RETURN(std::string moved_from, CanonicalPath(from));
  return json{{"from", moved_from}, {"to", moved_to}};
}

Result<json> DeleteFile(ServedStore& served, ToolArgs& args) {
  VEXFS_ASSIGN_OR_RETURN(std::string path, args.String("path"));
  VEXFS_ASSIGN_OR_RETURN(bool recursive, args.Bool("recursive", false));
  VEXFS_RETURN_IF_ERROR(args.RefuseUnknown());
  return Change(served, [&](TreeEditor& ed) { return RemovePath(ed, path, recursive); },
                json{{"path", path}, {"deleted", true}});
}

}  // namespace

void AddFileTools(std::vector<Tool>* tools) {
  tools->push_back(
      {"read_file", "Read a file",
       "Read a file of the agent's memory store (the working tree, or a snapshot with 'at'). "
       "Returns up to 'length' bytes from 'offset' (default 65536, at most 1048576): UTF-8 text "
       "as is, other bytes as base64 ('encoding' says which). When 'truncated' is true, read "
       "on from 'next_offset'.",
       ObjectSchema({{"path", PathProperty("File path in the store, e.g. notes/plan.md")},
                     {"at", AtProperty()},
                     {"offset", {{"type", "integer"}, {"minimum", 0}, {"description", "First byte"}}},
                     {"length", {{"type", "integer"}, {"minimum", 1}, {"maximum", kMaxReadBytes},
                                 {"description", "Most bytes to return"}}}},
                    {"path"}),
       {.read_only = true, .idempotent = true},
       ReadFile});
  tools->push_back(
      {"write_file", "Write a file",
       "Create or replace a whole file in the working tree (missing parent directories are "
       "created unless create_parents is false). The write is durable when the call returns "
       "and the file is indexed for search. At most 16 MiB per call.",
       ObjectSchema({{"path", PathProperty("File path in the store")},
                     {"content", {{"type", "string"}, {"description", "The new content"}}},
                     {"encoding", {{"type", "string"}, {"enum", {"utf8", "base64"}},
                                   {"description", "How 'content' is given (default utf8)"}}},
                     {"create_parents", {{"type", "boolean"}, {"description", "Default true"}}}},
                    {"path", "content"}),
       {.destructive = true, .idempotent = true},
       WriteFile});
  tools->push_back(
      {"edit_file", "Edit a file by exact text replacement",
       "Replace 'old_text' with 'new_text' in a UTF-8 file. 'old_text' must occur exactly "
       "'expected_replacements' times (default 1), whitespace included, or nothing changes. "
       "Returns a unified diff; with dry_run the diff is returned and the file is left as it "
       "is.",
       ObjectSchema({{"path", PathProperty("File path in the store")},
                     {"old_text", {{"type", "string"}, {"description", "Exact text to replace"}}},
                     {"new_text", {{"type", "string"}, {"description", "Replacement text"}}},
                     {"expected_replacements", {{"type", "integer"}, {"minimum", 1}}},
                     {"dry_run", {{"type", "boolean"}, {"description", "Only show the diff"}}}},
                    {"path", "old_text", "new_text"}),
       {.destructive = true},
       EditFile});
  tools->push_back(
      {"list_directory", "List a directory",
       "List a directory of the store (default: the root), with each entry's type, size and "
       "mtime; 'recursive' lists everything below it. At most 1000 entries ('truncated' says "
       "when there were more).",
       ObjectSchema({{"path", PathProperty("Directory path; empty for the root")},
                     {"at", AtProperty()},
                     {"recursive", {{"type", "boolean"}}}}),
       {.read_only = true, .idempotent = true},
       ListDirectory});
  tools->push_back({"stat", "Describe a path",
                    "The type, size, mode, owner and mtime of a file or directory.",
                    ObjectSchema({{"path", PathProperty("Path in the store")}, {"at", AtProperty()}},
                                 {"path"}),
                    {.read_only = true, .idempotent = true},
                    StatPath});
  tools->push_back({"make_directory", "Create a directory",
                    "Create a directory (and, unless parents is false, missing parents).",
                    ObjectSchema({{"path", PathProperty("Directory path")},
                                  {"parents", {{"type", "boolean"}}}},
                                 {"path"}),
                    {.idempotent = true},
                    MakeDir});
  tools->push_back(
      {"move", "Move or rename",
       "Move or rename a file or directory; into 'to' when that is an existing directory. An "
       "existing file at the destination is replaced only with overwrite.",
       ObjectSchema({{"from", PathProperty("Existing path")},
                     {"to", PathProperty("New path, or an existing directory")},
                     {"overwrite", {{"type", "boolean"}}}},
                    {"from", "to"}),
       {.destructive = true},
       MoveFile});
  tools->push_back(
      {"delete", "Delete a file or directory",
       "Delete a file; a directory only with recursive (everything in it goes). Snapshots keep "
       "what they hold: restore brings it back.",
       ObjectSchema({{"path", PathProperty("Path to delete")}, {"recursive", {{"type", "boolean"}}}},
                    {"path"}),
       {.destructive = true, .idempotent = true},
       DeleteFile});
}

}  // namespace vexfs::mcp
