// The MCP search tool: lexical (or hybrid, or dense) search of the working tree
// or a snapshot, with the library's filters.
#include "mcp/tool.h"
#include "vexfs/json.h"

namespace vexfs::mcp {
namespace {

using nlohmann::json;

Result<std::optional<TimeNs>> OptionalTime(ToolArgs& args, const std::string& name) {
  VEXFS_ASSIGN_OR_RETURN(auto text, args.OptionalString(name));
  if (!text) return std::optional<TimeNs>();
  auto t = ParseTime(*text);
  if (!t.ok()) return Status::InvalidArgument("argument '" + name + "': " + t.status().message());
  return std::optional<TimeNs>(*t);
}

Result<SearchRequest> ReadRequest(ServedStore& served, ToolArgs& args) {
  SearchRequest r;
  VEXFS_ASSIGN_OR_RETURN(r.query, args.String("query"));
  VEXFS_ASSIGN_OR_RETURN(int64_t k, args.Int("k", 10, 1, kMaxSearchHits));
  r.k = static_cast<size_t>(k);
  VEXFS_ASSIGN_OR_RETURN(auto mode, args.OptionalString("mode"));
  if (mode) {
    VEXFS_ASSIGN_OR_RETURN(r.mode, ParseSearchMode(*mode));
  }
  VEXFS_ASSIGN_OR_RETURN(r.under, args.StringOr("under", ""));
  VEXFS_ASSIGN_OR_RETURN(r.where, args.StringMap("where"));
  VEXFS_ASSIGN_OR_RETURN(r.modified_after, OptionalTime(args, "modified_after"));
  VEXFS_ASSIGN_OR_RETURN(r.modified_before, OptionalTime(args, "modified_before"));
  VEXFS_ASSIGN_OR_RETURN(r.snapshot, args.StringOr("at", ""));
  VEXFS_ASSIGN_OR_RETURN(r.passages, args.Bool("passages", false));
  VEXFS_RETURN_IF_ERROR(args.RefuseUnknown());
  if (r.snapshot.empty()) r.branch = served.branch();
  return r;
}

Result<json> Search(ServedStore& served, ToolArgs& args) {
  VEXFS_ASSIGN_OR_RETURN(SearchRequest request, ReadRequest(served, args));
  // What this session (or any process) wrote is searchable before the answer.
  VEXFS_ASSIGN_OR_RETURN(SearchResult result, served.db().Search(request, /*wait=*/true));
  return SearchResultJson(result);
}

}  // namespace

void AddSearchTool(std::vector<Tool>* tools) {
  json time = {{"type", "string"},
               {"description", "Seconds since the epoch, YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ (UTC)"}};
  tools->push_back(
      {"search", "Search memory by words and meaning",
       "Find the passages of stored files that best answer 'query': by default lexical "
       "search (BM25 keywords, the strongest with the built-in word-vector embedder) or, "
       "where the store's embedder is a sentence model, hybrid; mode 'hybrid' fuses "
       "BM25 with embedding similarity, 'dense' uses the embeddings alone. Returns up to k hits "
       "(default 10, at most 100), best first, each with path, byte range (offset, length), "
       "score and a "
       "snippet; read_file with that offset and length gives the whole passage. Filter by "
       "directory ('under'), metadata xattrs ('where': user.vexfs.meta.KEY=VALUE) and mtime; "
       "search a snapshot with 'at' (what was known then).",
       ObjectSchema({{"query", {{"type", "string"}, {"description", "What to look for"}}},
                     {"k", {{"type", "integer"}, {"minimum", 1}, {"maximum", kMaxSearchHits}}},
                     {"mode", {{"type", "string"}, {"enum", {"hybrid", "lexical", "dense"}}}},
                     {"under", {{"type", "string"}, {"description", "Only below this directory"}}},
                     {"where", {{"type", "object"},
                                {"additionalProperties", {{"type", "string"}}},
                                {"description", "Metadata that must match, KEY: VALUE"}}},
                     {"modified_after", time},
                     {"modified_before", time},
                     {"at", {{"type", "string"}, {"description", "Search this snapshot"}}},
                     {"passages", {{"type", "boolean"},
                                   {"description", "Every matching passage, not the best per file"}}}},
                    {"query"}),
       {.read_only = true, .idempotent = true},
       Search});
}

}  // namespace vexfs::mcp
