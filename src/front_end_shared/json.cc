// The one JSON encoding of VexFS's results (vexfs/json.h).
#include "vexfs/json.h"

#include <climits>
#include <ctime>
#include <string>

#include "common/base64.h"
#include "common/utf8.h"

namespace vexfs {

std::string FormatTime(TimeNs t) {
  std::time_t secs = static_cast<std::time_t>(t / 1000000000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// Accepts seconds since the epoch, "YYYY-MM-DD" or "YYYY-MM-DDTHH:MM:SSZ" (UTC).
Result<TimeNs> ParseTime(std::string_view given) {
  std::string text(given);
  constexpr int64_t kMaxSeconds = INT64_MAX / 1000000000;
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos) {
    if (text.size() > 11 || std::stoll(text) > kMaxSeconds) {
      return Status::InvalidArgument("time '" + text + "' is out of range");
    }
    return static_cast<TimeNs>(std::stoll(text)) * 1000000000;
  }
  std::tm tm{};
  const char* end = strptime(text.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  if (end == nullptr || *end != '\0') {
    tm = std::tm{};
    end = strptime(text.c_str(), "%Y-%m-%d", &tm);
  }
  if (end == nullptr || *end != '\0') {
    return Status::InvalidArgument("time '" + text +
                                   "' is not seconds, YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ");
  }
  time_t secs = timegm(&tm);
  if (secs < 0 || secs > kMaxSeconds) {
    return Status::InvalidArgument("time '" + text + "' is out of range");
  }
  return static_cast<TimeNs>(secs) * 1000000000;
}

nlohmann::json AttributesJson(const Attributes& a) {
  nlohmann::json j;
  j["type"] = FileTypeName(a.type);
  j["mode"] = a.mode;
  j["size"] = a.size;
  if (IsDeviceFile(a.type)) j["rdev"] = a.rdev;
  j["uid"] = a.uid;
  j["gid"] = a.gid;
  j["nlink"] = a.nlink;
  j["mtime"] = FormatTime(a.mtime);
  j["mtime_ns"] = a.mtime;
  if (a.ino != 0) j["ino"] = a.ino;
  return j;
}

nlohmann::json CommitJson(const CommitInfo& c) {
  nlohmann::json parents = nlohmann::json::array();
  for (const ObjectId& p : c.parents) parents.push_back(p.ToHex());
  nlohmann::json roots = nlohmann::json::object();
  for (const auto& [name, id] : c.roots) roots[name] = id.ToHex();
  return {{"id", c.id.ToHex()},      {"tree", c.tree.ToHex()},    {"names", c.names},
          {"branch", c.branch},      {"time", FormatTime(c.time)}, {"time_ns", c.time},
          {"message", c.message},    {"meta", c.meta},            {"parents", parents},
          {"roots", roots}};
}

nlohmann::json DiffEntryJson(const DiffEntry& e) {
  nlohmann::json j{
      {"change", DiffKindName(e.kind)}, {"path", e.path}, {"type", FileTypeName(e.type)}};
  if (e.kind == DiffEntry::Kind::kRenamed) j["old_path"] = e.old_path;
  if (!e.root.empty()) {
    j["root"] = e.root;
    j.erase("type");
  }
  return j;
}

nlohmann::json BranchJson(const BranchInfo& b) {
  return {{"name", b.name}, {"current", b.current}, {"head", b.head ? b.head->ToHex() : ""}};
}

nlohmann::json HitRankJson(const std::optional<HitRank>& r) {
  if (!r) return nullptr;
  return {{"rank", r->rank}, {"score", r->score}};
}

nlohmann::json SearchHitJson(const SearchHit& h) {
  nlohmann::json out = {{"offset", h.offset},
                        {"length", h.length},
                        {"score", h.score},
                        {"dense", HitRankJson(h.dense)},
                        {"lexical", HitRankJson(h.lexical)},
                        {"snippet", h.snippet}};
  // A memory-graph node's hit names the node (Db::SearchGraph), a file's its path.
  if (h.document.empty()) {
    out["path"] = h.path;
  } else {
    out["node"] = h.document;
  }
  return out;
}

nlohmann::json SearchResultJson(const SearchResult& r) {
  nlohmann::json hits = nlohmann::json::array();
  for (const SearchHit& h : r.hits) hits.push_back(SearchHitJson(h));
  nlohmann::json out = {{"mode", r.mode},
                        {"model", r.model},
                        {"lexical_model", r.lexical_model},
                        {"method", r.method},
                        {"visible_vectors", r.visible_vectors},
                        {"visible_passages", r.visible_passages},
                        {"unindexed_files", r.unindexed_files},
                        {"unindexed_nodes", r.unindexed_documents},
                        {"hits", hits}};
  if (!r.fusion.empty()) out["fusion"] = r.fusion;
  if (!r.note.empty()) out["note"] = r.note;
  return out;
}

nlohmann::json FilePassageJson(const FilePassage& p) {
  return {{"model", p.model}, {"offset", p.offset}, {"length", p.length}, {"dim", p.values.size()}};
}

nlohmann::json GcReportJson(const GcReport& r) {
  return {{"objects_freed", r.objects_freed},
          {"bytes_freed", r.bytes_freed},
          {"objects_kept", r.objects_kept}};
}

nlohmann::json FsckReportJson(const FsckReport& r) {
  return {{"ok", r.ok()},
          {"objects_checked", r.objects_checked},
          {"refs_checked", r.refs_checked},
          {"inodes_checked", r.inodes_checked},
          {"problems", r.problems}};
}

nlohmann::json StoreStatsJson(const StoreStats& s) {
  return {{"objects", s.objects},
          {"object_bytes", s.object_bytes},
          {"map_size", s.map_size},
          {"map_used", s.map_used}};
}

nlohmann::json FileContentJson(std::string_view path, std::string_view bytes) {
  bool text = IsValidUtf8(bytes);
  return {{"path", std::string(path)},
          {"size", bytes.size()},
          {"encoding", text ? "utf8" : "base64"},
          {"content", text ? std::string(bytes) : EncodeBase64(bytes)}};
}

}  // namespace vexfs
