// Listing and reading vexfs:// resources.
#include "mcp/resources.h"

#include <deque>

#include "common/base64.h"
#include "common/percent_encoding.h"
#include "common/utf8.h"
#include "vexfs/json.h"
#include "vexfs/paths.h"

namespace vexfs::mcp {
namespace {

using nlohmann::json;

constexpr std::string_view kFilesPrefix = "vexfs://files/";
constexpr std::string_view kSnapshotsPrefix = "vexfs://snapshots/";
constexpr size_t kResourcesPerPage = 500;

// Every regular file of the working tree, in walk order, up to `limit` after
// skipping `skip`. Sets *more when files remain.
Result<json> WorkingFiles(ServedStore& served, size_t skip, size_t limit, bool* more) {
  VEXFS_ASSIGN_OR_RETURN(auto tree, served.Tree());
  json out = json::array();
  size_t seen = 0;
  std::deque<std::string> dirs{""};
  while (!dirs.empty()) {
    std::string dir = dirs.front();
    dirs.pop_front();
    VEXFS_ASSIGN_OR_RETURN(auto entries, tree->List(dir));
    for (const DirEntry& e : entries) {
      std::string path = JoinPath(dir, e.name);
      if (e.attr.type == FileType::kDirectory) dirs.push_back(path);
      if (e.attr.type != FileType::kRegular || seen++ < skip) continue;
      if (out.size() == limit) {
        *more = true;
        return out;
      }
      out.push_back({{"uri", std::string(kFilesPrefix) + EncodeUriPath(path)},
                     {"name", path},
                     {"size", e.attr.size}});
    }
  }
  return out;
}

json Listing(const std::string& uri_prefix, const std::string& dir,
             const std::vector<DirEntry>& entries) {
  json items = json::array();
  for (const DirEntry& e : entries) {
    json item = AttributesJson(e.attr);
    item["name"] = e.name;
    item["uri"] = uri_prefix + EncodeUriPath(JoinPath(dir, e.name));
    items.push_back(item);
  }
  return {{"path", dir}, {"entries", items}};
}

// The content of `path` in `view` as one resources/read content item.
Result<json> ReadPath(TreeView& view, const std::string& uri, const std::string& uri_prefix,
                      const std::string& path) {
  VEXFS_ASSIGN_OR_RETURN(Attributes attr, view.Stat(path));
  if (attr.type == FileType::kDirectory) {
    VEXFS_ASSIGN_OR_RETURN(auto entries, view.List(path));
    return json{{"uri", uri}, {"mimeType", "application/json"},
                {"text", Listing(uri_prefix, path, entries).dump()}};
  }
  if (attr.size > kMaxReadBytes) {
    return Status::InvalidArgument("'" + path + "' is " + std::to_string(attr.size) +
                                   " bytes; resources are read whole up to " +
                                   std::to_string(kMaxReadBytes) + ": use read_file for ranges");
  }
  VEXFS_ASSIGN_OR_RETURN(std::string bytes, view.ReadAll(path));
  if (IsValidUtf8(bytes)) return json{{"uri", uri}, {"mimeType", "text/plain"}, {"text", bytes}};
  return json{{"uri", uri}, {"mimeType", "application/octet-stream"}, {"blob", EncodeBase64(bytes)}};
}

Result<json> ReadSnapshotResource(ServedStore& served, const std::string& uri,
                                  std::string_view rest) {
  size_t slash = rest.find('/');
  std::string name(rest.substr(0, slash));
  VEXFS_ASSIGN_OR_RETURN(std::string path, DecodeUriPath(
                                               slash == std::string_view::npos ? "" : rest.substr(slash + 1)));
  VEXFS_ASSIGN_OR_RETURN(auto view, served.store().OpenSnapshot(name));
  VEXFS_ASSIGN_OR_RETURN(path, CanonicalPath(path));
  return ReadPath(*view, uri, std::string(kSnapshotsPrefix) + name + "/", path);
}

}  // namespace

std::string EncodeUriPath(std::string_view path) { return PercentEncode(path, "/"); }

Result<std::string> DecodeUriPath(std::string_view text) { return PercentDecode(text); }

Result<json> ListResources(ServedStore& served, const std::string& cursor) {
  size_t skip = 0;
  if (!cursor.empty()) {
    if (cursor.find_first_not_of("0123456789") != std::string::npos || cursor.size() > 12) {
      return Status::InvalidArgument("the cursor is not one this server gave");
    }
    skip = std::stoull(cursor);
  }
  json resources = json::array();
  if (skip == 0) {  // snapshots lead the first page
    VEXFS_ASSIGN_OR_RETURN(auto snapshots, served.store().ListSnapshots());
    for (const CommitInfo& c : snapshots) {
      for (const std::string& name : c.names) {
        resources.push_back({{"uri", std::string(kSnapshotsPrefix) + name + "/"},
                             {"name", "snapshot " + name},
                             {"description", c.message},
                             {"mimeType", "application/json"}});
      }
    }
  }
  bool more = false;
  VEXFS_ASSIGN_OR_RETURN(json files, WorkingFiles(served, skip, kResourcesPerPage, &more));
  for (auto& f : files) resources.push_back(std::move(f));
  json out{{"resources", resources}};
  if (more) out["nextCursor"] = std::to_string(skip + kResourcesPerPage);
  return out;
}

json ResourceTemplates() {
  return {{"resourceTemplates",
           {{{"uriTemplate", std::string(kFilesPrefix) + "{+path}"},
             {"name", "file"},
             {"description", "A file or directory of the served working tree"}},
            {{"uriTemplate", std::string(kSnapshotsPrefix) + "{name}/{+path}"},
             {"name", "snapshot file"},
             {"description", "A file or directory as a snapshot holds it"}}}}};
}

Result<json> ReadResource(ServedStore& served, const std::string& uri) {
  json content;
  if (uri.starts_with(kFilesPrefix)) {
    VEXFS_ASSIGN_OR_RETURN(std::string path, DecodeUriPath(std::string_view(uri).substr(kFilesPrefix.size())));
    VEXFS_ASSIGN_OR_RETURN(path, CanonicalPath(path));
    VEXFS_ASSIGN_OR_RETURN(auto tree, served.Tree());
    VEXFS_ASSIGN_OR_RETURN(content, ReadPath(*tree, uri, std::string(kFilesPrefix), path));
  } else if (uri.starts_with(kSnapshotsPrefix)) {
    VEXFS_ASSIGN_OR_RETURN(content, ReadSnapshotResource(
                                        served, uri, std::string_view(uri).substr(kSnapshotsPrefix.size())));
  } else {
    return Status::NotFound("'" + uri + "' is not a vexfs://files/ or vexfs://snapshots/ URI");
  }
  return json{{"contents", json::array({content})}};
}

}  // namespace vexfs::mcp
