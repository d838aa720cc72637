// The store as MCP resources: vexfs://files/PATH (the served working tree) and
// vexfs://snapshots/NAME/PATH (a snapshot), directories read as JSON listings.
#ifndef VEXFS_MCP_RESOURCES_H_
#define VEXFS_MCP_RESOURCES_H_

#include <nlohmann/json.hpp>

#include <string>

#include "mcp/tool.h"

namespace vexfs::mcp {

// resources/list: snapshots, then the working tree's files, a page at a time
// (`cursor` is the opaque nextCursor of the page before, "" for the first).
Result<nlohmann::json> ListResources(ServedStore& served, const std::string& cursor);
// resources/templates/list.
nlohmann::json ResourceTemplates();
// resources/read. kNotFound for a URI that names nothing.
Result<nlohmann::json> ReadResource(ServedStore& served, const std::string& uri);

// Percent-encoding of store paths in URIs (RFC 3986: unreserved bytes and '/'
// stay as they are).
std::string EncodeUriPath(std::string_view path);
Result<std::string> DecodeUriPath(std::string_view text);

}  // namespace vexfs::mcp

#endif  // VEXFS_MCP_RESOURCES_H_
