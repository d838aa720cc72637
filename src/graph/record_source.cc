// The working and snapshot record sources (record_source.h).
#include "graph/record_source.h"

#include "graph/records.h"

namespace vexfs::graph {

Result<std::optional<std::vector<GraphId>>> RecordSource::IdsOfKind(std::string_view) const {
  return std::optional<std::vector<GraphId>>();
}

Result<std::optional<std::vector<GraphId>>> RecordSource::IdsInThread(std::string_view) const {
  return std::optional<std::vector<GraphId>>();
}

// Without an index, a scan of every out-edge finds it.
Result<std::optional<std::string>> RecordSource::EdgeKey(const GraphId& id) const {
  std::optional<std::string> found;
  VEXFS_RETURN_IF_ERROR(Scan("", [&](std::string_view key, std::string_view) -> Result<bool> {
    RecordKey parsed;
    VEXFS_RETURN_IF_ERROR(ParseRecordKey(key, &parsed));
    if (parsed.type == RecordType::kOutEdge && parsed.edge == id) {
      found = std::string(key);
      return false;
    }
    return true;
  }));
  return found;
}

Result<std::optional<std::string>> WorkingSource::Get(std::string_view key) const {
  return graph_.GetRecord(key);
}

Status WorkingSource::Scan(std::string_view prefix, const RecordVisitor& visit) const {
  return graph_.VisitRecords(prefix, visit);
}

Result<std::optional<std::vector<GraphId>>> WorkingSource::IdsOfKind(std::string_view kind) const {
  VEXFS_ASSIGN_OR_RETURN(std::vector<GraphId> ids, graph_.IdsOfKind(kind));
  return std::optional<std::vector<GraphId>>(std::move(ids));
}

Result<std::optional<std::vector<GraphId>>> WorkingSource::IdsInThread(
    std::string_view thread) const {
  VEXFS_ASSIGN_OR_RETURN(std::vector<GraphId> ids, graph_.IdsInThread(thread));
  return std::optional<std::vector<GraphId>>(std::move(ids));
}

Result<std::optional<std::string>> WorkingSource::EdgeKey(const GraphId& id) const {
  VEXFS_ASSIGN_OR_RETURN(std::optional<GraphEdge> edge, graph_.GetEdge(id));
  if (!edge) return std::optional<std::string>();
  return std::optional<std::string>(OutEdgeKey(*edge));
}

Result<std::optional<std::string>> SnapshotSource::Get(std::string_view key) const {
  return reader_.Lookup(top_, key);
}

Status SnapshotSource::Scan(std::string_view prefix, const RecordVisitor& visit) const {
  return reader_.Scan(top_, prefix, visit);
}

}  // namespace vexfs::graph
