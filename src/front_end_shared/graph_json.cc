// The JSON encoding of the memory graph's nodes, edges, neighbourhoods, diffs
// and write results (vexfs/json.h), shared by every front end.
#include <nlohmann/json.hpp>

#include "vexfs/json.h"

namespace vexfs {
namespace {

// "name": ISO 8601 text and "name_ns": nanoseconds, both null for a time that
// has not ended.
void PutTime(nlohmann::json* j, const std::string& name, TimeNs t) {
  bool open = t == kGraphForever;
  (*j)[name] = open ? nlohmann::json() : nlohmann::json(FormatTime(t));
  (*j)[name + "_ns"] = open ? nlohmann::json() : nlohmann::json(t);
}

void PutTimes(nlohmann::json* j, const GraphTimes& t) {
  PutTime(j, "valid_from", t.valid_from);
  PutTime(j, "valid_to", t.valid_to);
  PutTime(j, "recorded_at", t.recorded_at);
  PutTime(j, "retired_at", t.retired_at);
}

// Stored properties are canonical JSON; anything else shows as text.
nlohmann::json PropertiesJson(const std::string& text) {
  nlohmann::json parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  return parsed.is_discarded() ? nlohmann::json(text) : parsed;
}

using nlohmann::json;

Status Bad(const std::string& where, const std::string& what) {
  return Status::InvalidArgument(where + ": " + what);
}

// The members of `item` that are not in `known`, as an error; Ok if none.
Status RefuseUnknown(const json& item, const std::string& where, std::initializer_list<const char*> known) {
  for (const auto& [name, value] : item.items()) {
    bool ok = false;
    for (const char* k : known) ok = ok || name == k;
    if (!ok) return Bad(where, "unknown member '" + name + "'");
  }
  return Status::Ok();
}

Result<std::string> StringMember(const json& item, const std::string& where, const char* name, bool required) {
  if (!item.contains(name) || item[name].is_null()) {
    if (required) return Bad(where, std::string("'") + name + "' is required");
    return std::string();
  }
  if (!item[name].is_string()) return Bad(where, std::string("'") + name + "' must be a string");
  return item[name].get<std::string>();
}

Result<std::string> PropertiesMember(const json& item, const std::string& where) {
  if (!item.contains("properties") || item["properties"].is_null()) return std::string("{}");
  if (!item["properties"].is_object()) return Bad(where, "'properties' must be an object");
  return item["properties"].dump(-1, ' ', false, json::error_handler_t::replace);
}

// 0 when absent (now for a new item, unchanged for one that exists).
Result<TimeNs> TimeMember(const json& item, const std::string& where, const char* name) {
  VEXFS_ASSIGN_OR_RETURN(std::string text, StringMember(item, where, name, false));
  if (text.empty()) return TimeNs{0};
  auto t = ParseTime(text);
  if (!t.ok()) return Bad(where, t.status().message());
  return *t;
}

Result<NodeSpec> NodeFromJson(const json& item, const std::string& where) {
  if (!item.is_object()) return Bad(where, "a node must be an object");
  VEXFS_RETURN_IF_ERROR(RefuseUnknown(item, where, {"kind", "text", "properties", "thread", "key", "source",
                                                    "valid_from", "valid_to"}));
  NodeSpec spec;
  VEXFS_ASSIGN_OR_RETURN(spec.kind, StringMember(item, where, "kind", true));
  VEXFS_ASSIGN_OR_RETURN(spec.text, StringMember(item, where, "text", false));
  VEXFS_ASSIGN_OR_RETURN(spec.thread, StringMember(item, where, "thread", false));
  VEXFS_ASSIGN_OR_RETURN(spec.key, StringMember(item, where, "key", false));
  VEXFS_ASSIGN_OR_RETURN(spec.source, StringMember(item, where, "source", false));
  VEXFS_ASSIGN_OR_RETURN(spec.properties, PropertiesMember(item, where));
  VEXFS_ASSIGN_OR_RETURN(spec.valid_from, TimeMember(item, where, "valid_from"));
  VEXFS_ASSIGN_OR_RETURN(TimeNs to, TimeMember(item, where, "valid_to"));
  if (to != 0) spec.valid_to = to;
  return spec;
}

Result<GraphId> NodeRef(const std::string& ref, const std::vector<GraphId>& added, const std::string& where) {
  if (!ref.starts_with("#")) {
    auto id = ParseGraphRef(ref);
    if (!id.ok()) return Bad(where, id.status().message());
    return *id;
  }
  std::string digits = ref.substr(1);
  bool number = !digits.empty() && digits.size() < 10 &&
                digits.find_first_not_of("0123456789") == std::string::npos;
  if (!number || std::stoul(digits) >= added.size()) {
    return Bad(where, "'" + ref + "' names no node of this request");
  }
  return added[std::stoul(digits)];
}

Result<EdgeSpec> LinkFromJson(const json& item, const std::string& where, const std::vector<GraphId>& added) {
  if (!item.is_object()) return Bad(where, "a link must be an object");
  VEXFS_RETURN_IF_ERROR(RefuseUnknown(item, where, {"from", "kind", "to", "properties", "valid_from", "valid_to"}));
  EdgeSpec spec;
  VEXFS_ASSIGN_OR_RETURN(std::string from, StringMember(item, where, "from", true));
  VEXFS_ASSIGN_OR_RETURN(spec.kind, StringMember(item, where, "kind", true));
  VEXFS_ASSIGN_OR_RETURN(std::string to, StringMember(item, where, "to", true));
  VEXFS_ASSIGN_OR_RETURN(spec.from, NodeRef(from, added, where));
  VEXFS_ASSIGN_OR_RETURN(spec.to, NodeRef(to, added, where));
  VEXFS_ASSIGN_OR_RETURN(spec.properties, PropertiesMember(item, where));
  VEXFS_ASSIGN_OR_RETURN(spec.valid_from, TimeMember(item, where, "valid_from"));
  VEXFS_ASSIGN_OR_RETURN(TimeNs until, TimeMember(item, where, "valid_to"));
  if (until != 0) spec.valid_to = until;
  return spec;
}

}  // namespace

namespace {

Result<bool> BoolMember(const json& item, const std::string& where, const char* name) {
  if (!item.contains(name) || item[name].is_null()) return false;
  if (!item[name].is_boolean()) return Bad(where, std::string("'") + name + "' must be true or false");
  return item[name].get<bool>();
}

Result<std::vector<std::string>> StringListMember(const json& item, const std::string& where,
                                                  const char* name) {
  std::vector<std::string> out;
  if (!item.contains(name) || item[name].is_null()) return out;
  if (!item[name].is_array()) return Bad(where, std::string("'") + name + "' must be an array of strings");
  for (const json& v : item[name]) {
    if (!v.is_string()) return Bad(where, std::string("'") + name + "' must be an array of strings");
    out.push_back(v.get<std::string>());
  }
  return out;
}

Result<std::map<std::string, std::string>> StringMapMember(const json& item, const std::string& where,
                                                           const char* name) {
  std::map<std::string, std::string> out;
  if (!item.contains(name) || item[name].is_null()) return out;
  if (!item[name].is_object()) return Bad(where, std::string("'") + name + "' must be an object of strings");
  for (const auto& [key, value] : item[name].items()) {
    if (!value.is_string()) return Bad(where, std::string("'") + name + "." + key + "' must be a string");
    out[key] = value.get<std::string>();
  }
  return out;
}

}  // namespace

Status GraphSearchFromJson(const json& request, SearchRequest* search, NodeSearch* nodes) {
  const std::string where = "graph search";
  if (!request.is_object()) return Bad(where, "the request must be a JSON object");
  VEXFS_RETURN_IF_ERROR(RefuseUnknown(request, where, {"query", "k", "mode", "kinds", "thread", "properties",
                                                       "files", "at", "valid_at", "all"}));
  VEXFS_ASSIGN_OR_RETURN(search->query, StringMember(request, where, "query", true));
  if (request.contains("k")) {
    if (!request["k"].is_number_unsigned()) return Bad(where, "'k' must be a positive integer");
    search->k = request["k"].get<size_t>();
  }
  VEXFS_ASSIGN_OR_RETURN(std::string mode, StringMember(request, where, "mode", false));
  if (!mode.empty()) {
    auto parsed = ParseSearchMode(mode);
    if (!parsed.ok()) return Bad(where, parsed.status().message());
    search->mode = *parsed;
  }
  VEXFS_ASSIGN_OR_RETURN(search->snapshot, StringMember(request, where, "at", false));
  VEXFS_ASSIGN_OR_RETURN(nodes->kinds, StringListMember(request, where, "kinds"));
  VEXFS_ASSIGN_OR_RETURN(nodes->thread, StringMember(request, where, "thread", false));
  VEXFS_ASSIGN_OR_RETURN(nodes->properties, StringMapMember(request, where, "properties"));
  VEXFS_ASSIGN_OR_RETURN(nodes->files, BoolMember(request, where, "files"));
  VEXFS_ASSIGN_OR_RETURN(nodes->valid_at, TimeMember(request, where, "valid_at"));
  VEXFS_ASSIGN_OR_RETURN(bool all, BoolMember(request, where, "all"));
  nodes->include_invalid = all;
  nodes->include_retired = all;
  return Status::Ok();
}

Result<GraphBatch> GraphBatchFromJson(const json& request, size_t max_items) {
  if (!request.is_object()) return Status::InvalidArgument("a graph request must be a JSON object");
  VEXFS_RETURN_IF_ERROR(RefuseUnknown(request, "the request", {"nodes", "links"}));
  json nodes = request.value("nodes", json::array());
  json links = request.value("links", json::array());
  if (!nodes.is_array() || !links.is_array()) return Status::InvalidArgument("'nodes' and 'links' must be arrays");
  if (nodes.size() + links.size() > max_items) {
    return Status::InvalidArgument("at most " + std::to_string(max_items) + " nodes and links in one request");
  }
  GraphBatch batch;
  std::vector<GraphId> added;
  for (size_t i = 0; i < nodes.size(); ++i) {
    VEXFS_ASSIGN_OR_RETURN(NodeSpec spec, NodeFromJson(nodes[i], "nodes[" + std::to_string(i) + "]"));
    added.push_back(batch.AddNode(std::move(spec)));
  }
  for (size_t i = 0; i < links.size(); ++i) {
    VEXFS_ASSIGN_OR_RETURN(EdgeSpec spec, LinkFromJson(links[i], "links[" + std::to_string(i) + "]", added));
    batch.Link(std::move(spec));
  }
  return batch;
}

nlohmann::json GraphNodeJson(const GraphNode& n) {
  nlohmann::json j{{"id", n.id.ToHex()},         {"kind", n.kind},     {"text", n.text},
                   {"properties", PropertiesJson(n.properties)},      {"thread", n.thread},
                   {"key", n.key},               {"source", n.source}};
  PutTimes(&j, n.times);
  j["span"] = nullptr;
  if (n.span) {
    j["span"] = {{"cache", n.span->cache},           {"start", n.span->start},
                 {"end", n.span->end},               {"cache_tokens", n.span->cache_tokens},
                 {"tokens_hash", n.span->tokens_hash}};
  }
  if (n.action != ActionState::kNone) {
    j["action"] = ActionStateName(n.action);
    j["result"] = n.result.IsZero() ? nlohmann::json() : nlohmann::json(n.result.ToHex());
  }
  return j;
}

nlohmann::json GraphEdgeJson(const GraphEdge& e) {
  nlohmann::json j{{"id", e.id.ToHex()},     {"kind", e.kind}, {"from", e.from.ToHex()},
                   {"to", e.to.ToHex()},     {"properties", PropertiesJson(e.properties)}};
  PutTimes(&j, e.times);
  return j;
}

nlohmann::json NeighborhoodJson(const Neighborhood& n) {
  nlohmann::json nodes = nlohmann::json::array();
  for (const GraphNode& node : n.nodes) nodes.push_back(GraphNodeJson(node));
  nlohmann::json edges = nlohmann::json::array();
  for (const GraphEdge& edge : n.edges) edges.push_back(GraphEdgeJson(edge));
  return {{"nodes", nodes}, {"edges", edges}};
}

nlohmann::json GraphChangeJson(const GraphChange& c) {
  nlohmann::json j{{"change", GraphChangeKindName(c.kind)}};
  if (c.node) j["node"] = GraphNodeJson(*c.node);
  if (c.before) j["before"] = GraphNodeJson(*c.before);
  if (c.edge) j["edge"] = GraphEdgeJson(*c.edge);
  if (c.edge_before) j["edge_before"] = GraphEdgeJson(*c.edge_before);
  if (c.kind == GraphChange::Kind::kSuperseded) j["by"] = c.by.ToHex();
  return j;
}

nlohmann::json GraphDiffJson(const GraphDiff& d) {
  nlohmann::json changes = nlohmann::json::array();
  for (const GraphChange& c : d.changes) changes.push_back(GraphChangeJson(c));
  return {{"changes", changes}};
}

nlohmann::json GraphWriteResultJson(const GraphWriteResult& r) {
  nlohmann::json nodes = nlohmann::json::array();
  for (const GraphId& id : r.nodes) nodes.push_back(id.ToHex());
  nlohmann::json edges = nlohmann::json::array();
  for (const GraphId& id : r.edges) edges.push_back(id.ToHex());
  return {{"nodes", nodes}, {"edges", edges}, {"records_changed", r.records_changed}};
}

}  // namespace vexfs
