// One JSON encoding of what VexFS reports: file attributes, commits, diffs,
// branches, search hits and results, the memory graph, and the maintenance
// reports. The CLI's
// --json output, the mount's .vexfs/ views and every other front end encode
// through these functions, so a program reading one reads them all. Field names
// are documented in docs/cli.md; fields are only ever added, never renamed.
// Times appear twice: as ISO 8601 UTC text ("mtime") and as nanoseconds since
// the epoch ("mtime_ns"). Object ids are lowercase hex.
//
// The values are nlohmann::json (a header-only library that the CMake package
// and pkg-config file name as a dependency).
//
// Thread-safety: pure functions.
#ifndef VEXFS_JSON_H_
#define VEXFS_JSON_H_

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "vexfs/db.h"
#include "vexfs/graph.h"
#include "vexfs/index.h"
#include "vexfs/store.h"
#include "vexfs/types.h"

// The public API: exported from libvexfs.so, which is built with hidden visibility.
#pragma GCC visibility push(default)

namespace vexfs {

// "2026-12-02T15:00:00Z": whole seconds, UTC.
std::string FormatTime(TimeNs t);
// The times users give: seconds since the epoch, "YYYY-MM-DD" or
// "YYYY-MM-DDTHH:MM:SSZ" (UTC). kInvalidArgument naming the text otherwise.
Result<TimeNs> ParseTime(std::string_view text);

nlohmann::json AttributesJson(const Attributes& a);
nlohmann::json CommitJson(const CommitInfo& c);
nlohmann::json DiffEntryJson(const DiffEntry& e);
nlohmann::json BranchJson(const BranchInfo& b);

// One side's rank and score for a hit; null where that side did not find it.
nlohmann::json HitRankJson(const std::optional<HitRank>& r);
// A hit: path (or "node", a graph node's id), passage range, fused score, both
// sides' ranks, snippet.
nlohmann::json SearchHitJson(const SearchHit& h);
// A whole answer: what answered (mode, models, method), what was visible, the
// hits; "fusion" and "note" only when set.
nlohmann::json SearchResultJson(const SearchResult& r);
// An indexed passage without its vector: model, offset, length, dim.
nlohmann::json FilePassageJson(const FilePassage& p);

// The memory graph (docs/graph.md). Times that have not ended are null.
nlohmann::json GraphNodeJson(const GraphNode& n);
nlohmann::json GraphEdgeJson(const GraphEdge& e);
nlohmann::json NeighborhoodJson(const Neighborhood& n);
nlohmann::json GraphChangeJson(const GraphChange& c);
nlohmann::json GraphDiffJson(const GraphDiff& d);
nlohmann::json GraphWriteResultJson(const GraphWriteResult& r);
// The batch a request {"nodes": [...], "links": [...]} asks for (docs/graph.md):
// nodes with kind, text, properties (an object), thread, key, source,
// valid_from and valid_to (times as ParseTime reads them); links with from,
// kind, to and properties, naming nodes by id, key:KEY, entity:NAME or "#N",
// the N-th node (from 0) of the same request. kInvalidArgument naming the item
// ("nodes[2]: ...") for anything else, or past `max_items` items.
Result<GraphBatch> GraphBatchFromJson(const nlohmann::json& request, size_t max_items = 10000);
// A graph search: {"query", "k", "mode", "kinds": [...], "thread", "properties":
// {KEY: VALUE}, "files", "at", "valid_at", "all"} (all but query optional) into
// the request and node filters of Db::SearchGraph. kInvalidArgument naming the
// member for anything else.
Status GraphSearchFromJson(const nlohmann::json& request, SearchRequest* search, NodeSearch* nodes);

nlohmann::json GcReportJson(const GcReport& r);
nlohmann::json FsckReportJson(const FsckReport& r);
nlohmann::json StoreStatsJson(const StoreStats& s);
// A file's bytes: path, size, and content as UTF-8 text ("encoding": "utf8")
// when the bytes are valid UTF-8, else as base64 ("encoding": "base64"), as the
// MCP server's read_file gives them.
nlohmann::json FileContentJson(std::string_view path, std::string_view bytes);

}  // namespace vexfs

#pragma GCC visibility pop

#endif  // VEXFS_JSON_H_
