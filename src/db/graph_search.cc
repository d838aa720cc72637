// Node texts into the index, and nodes into a search request.
#include "db/graph_search.h"

#include <nlohmann/json.hpp>
#include <unordered_map>

namespace vexfs::db {
namespace {

// A string property matches by its text, any other by its compact JSON.
bool PropertiesMatch(const std::string& properties,
                     const std::map<std::string, std::string>& wanted) {
  if (wanted.empty()) return true;
  nlohmann::json object = nlohmann::json::parse(properties, nullptr, /*allow_exceptions=*/false);
  if (!object.is_object()) return false;
  for (const auto& [key, value] : wanted) {
    auto it = object.find(key);
    if (it == object.end()) return false;
    std::string text = it->is_string() ? it->get<std::string>() : it->dump();
    if (text != value) return false;
  }
  return true;
}

GraphReadOptions ReadOf(const SearchRequest& request, const NodeSearch& nodes) {
  GraphReadOptions read;
  read.branch = request.branch;
  read.snapshot = request.snapshot;
  read.valid_at = nodes.valid_at;
  read.include_invalid = nodes.include_invalid;
  read.include_retired = nodes.include_retired;
  return read;
}

}  // namespace

Status DrainGraphTexts(Graph& graph, Index& index, const std::function<bool()>& stop,
                       const ProgressFn& progress) {
  uint64_t done = 0;
  while (!stop || !stop()) {
    VEXFS_ASSIGN_OR_RETURN(std::vector<PendingText> pending, graph.PendingTexts(kTextsPerDrain));
    if (pending.empty()) break;
    std::vector<std::string> texts;
    std::vector<ObjectId> keys;
    for (PendingText& p : pending) {
      keys.push_back(p.key);
      texts.push_back(std::move(p.text));
    }
    VEXFS_RETURN_IF_ERROR(index.IndexTexts(texts));
    // Indexed first, released after: a crash between indexes them again, which
    // finds their passages and costs a lookup each.
    VEXFS_RETURN_IF_ERROR(graph.ReleaseTexts(keys));
    done += keys.size();
    if (progress) progress(done, done + (keys.size() == kTextsPerDrain ? 1 : 0));
  }
  return Status::Ok();
}

Status AddNodeDocuments(Graph& graph, const NodeSearch& nodes, SearchRequest* request) {
  std::vector<std::string> kinds = nodes.kinds;
  if (kinds.empty()) kinds.push_back("");
  auto texts = std::make_shared<std::unordered_map<std::string, std::string>>();
  for (const std::string& kind : kinds) {
    GraphQuery query;
    query.kind = kind;
    query.thread = nodes.thread;
    query.read = ReadOf(*request, nodes);
    VEXFS_ASSIGN_OR_RETURN(std::vector<GraphNode> found, graph.Nodes(query));
    for (GraphNode& node : found) {
      if (node.text.empty() || !PropertiesMatch(node.properties, nodes.properties)) continue;
      std::string key = node.id.ToHex();
      auto [it, inserted] = texts->try_emplace(key, std::move(node.text));
      if (inserted) request->documents.push_back({key, SearchTextId(it->second)});
    }
  }
  request->files = nodes.files;
  request->read_document = [texts](const std::string& key) -> Result<std::string> {
    auto it = texts->find(key);
    if (it == texts->end()) return Status::NotFound("node " + key + " is not in this search");
    return it->second;
  };
  return Status::Ok();
}

}  // namespace vexfs::db
