// Node texts into the index, and nodes into a search request.
#include "db/graph_search.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
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

Status DrainGraphTexts(Graph& graph, Index& index, const std::function<bool()>& stop) {
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
  }
  return Status::Ok();
}

std::shared_ptr<const NodeDocuments> NodeDocumentsCache::Find(const std::string& key) {
  std::lock_guard lock(mu_);
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->first != key) continue;
    if (NowNs() >= it->second->expires_at) {
      entries_.erase(it);
      return nullptr;
    }
    entries_.splice(entries_.begin(), entries_, it);
    return entries_.front().second;
  }
  return nullptr;
}

void NodeDocumentsCache::Insert(const std::string& key, std::shared_ptr<const NodeDocuments> value) {
  std::lock_guard lock(mu_);
  entries_.emplace_front(key, std::move(value));
  if (entries_.size() > kEntries) entries_.pop_back();
}

std::string NodeSelectionKey(const SearchRequest& request, const NodeSearch& nodes,
                             uint64_t last_commit) {
  // Lengths before strings, so no two selections share a key.
  auto part = [](const std::string& s) { return std::to_string(s.size()) + ":" + s; };
  std::string key = std::to_string(last_commit) + "|" + part(request.snapshot) + part(request.branch);
  for (const std::string& kind : nodes.kinds) key += "k" + part(kind);
  key += "t" + part(nodes.thread);
  for (const auto& [k, v] : nodes.properties) key += "p" + part(k) + part(v);
  key += "v" + std::to_string(nodes.valid_at);
  key += nodes.include_invalid ? "I" : "-";
  key += nodes.include_retired ? "R" : "-";
  return key;
}

Result<NodeDocuments> SelectNodes(Graph& graph, const SearchRequest& request, const NodeSearch& nodes) {
  std::vector<std::string> kinds = nodes.kinds;
  if (kinds.empty()) kinds.push_back("");
  static std::atomic<uint64_t> selections{0};
  NodeDocuments out;
  out.name = std::to_string(++selections);
  // "Valid now" is judged here, so the selection knows when it stops holding.
  bool now_only = nodes.valid_at == 0 && !nodes.include_invalid;
  TimeNs now = NowNs();
  for (const std::string& kind : kinds) {
    GraphQuery query;
    query.kind = kind;
    query.thread = nodes.thread;
    query.read = ReadOf(request, nodes);
    if (now_only) query.read.include_invalid = true;
    VEXFS_RETURN_IF_ERROR(graph.VisitNodes(query, [&](GraphNode& node) {
      if (now_only) {
        const GraphTimes& t = node.times;
        if (t.valid_from > now) out.expires_at = std::min(out.expires_at, t.valid_from);
        if (t.valid_to > now) out.expires_at = std::min(out.expires_at, t.valid_to);
        if (!(t.valid_from <= now && now < t.valid_to)) return true;
      }
      if (node.text.empty() || !PropertiesMatch(node.properties, nodes.properties)) return true;
      std::string key = node.id.ToHex();
      auto [it, inserted] = out.texts.try_emplace(key, std::move(node.text));
      if (inserted) out.documents.push_back({key, SearchTextId(it->second)});
      return true;
    }));
  }
  return out;
}

void UseNodeDocuments(std::shared_ptr<const NodeDocuments> selected, const NodeSearch& nodes,
                      SearchRequest* request) {
  // Aliases the cached selection: nothing is copied per search.
  request->documents = std::shared_ptr<const std::vector<SearchDocument>>(selected, &selected->documents);
  request->documents_key = selected->name;
  request->files = nodes.files;
  request->read_document = [selected](const std::string& id) -> Result<std::string> {
    auto it = selected->texts.find(id);
    if (it == selected->texts.end()) return Status::NotFound("node " + id + " is not in this search");
    return it->second;
  };
}

}  // namespace vexfs::db
