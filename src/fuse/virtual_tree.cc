// VirtualTree: the .vexfs/ views (see virtual_tree.h).
#include "fuse/virtual_tree.h"

#include <unistd.h>

#include <cstring>

#include "common/sha256.h"
#include "fuse/query_name.h"
#include "vexfs/json.h"
#include "vexfs/paths.h"

namespace vexfs::fuse {
namespace {

constexpr uint64_t kVexfsIno = kVirtualInoBit | 1;
constexpr uint64_t kStatusIno = kVirtualInoBit | 2;
constexpr uint64_t kSearchIno = kVirtualInoBit | 3;
constexpr uint64_t kSnapshotsIno = kVirtualInoBit | 4;
constexpr uint64_t kGraphIno = kVirtualInoBit | 5;
constexpr uint64_t kByKindIno = kVirtualInoBit | 6;
constexpr uint64_t kByThreadIno = kVirtualInoBit | 7;
constexpr uint64_t kHashedInoBit = uint64_t{1} << 62;
// A query's results are reused while nothing was committed since it ran, and,
// unless the mount's indexer has indexed something since, for at least this long:
// a burst of lookups (ls -l) under steady writes runs it once rather than once
// per entry, and a newly indexed file shows up at once.
constexpr TimeNs kQueryMinAge = 10'000'000;
constexpr std::string_view kResultsName = "results.jsonl";

// Keys name what a node shows; NUL separates parts no name can contain.
std::string QueryKey(std::string_view name) { return "q" + std::string(name); }
std::string SnapshotKey(std::string_view snapshot, std::string_view path) {
  return "s" + std::string(snapshot) + '\0' + std::string(path);
}
std::string ChildKey(uint64_t parent, std::string_view name) {
  return "c" + std::to_string(parent) + '\0' + std::string(name);
}
char GroupingChar(GraphGrouping g) { return g == GraphGrouping::kKind ? 'k' : 't'; }
std::string GraphSetKey(GraphGrouping g, std::string_view dir) {
  return "g" + std::string(1, GroupingChar(g)) + std::string(dir);
}
std::string GraphFileKey(GraphGrouping g, std::string_view dir, std::string_view file) {
  return "n" + std::string(1, GroupingChar(g)) + std::string(dir) + '\0' + std::string(file);
}

uint64_t InoOf(const std::string& key) {
  ObjectId h = Sha256Of(key);
  uint64_t ino;
  std::memcpy(&ino, h.bytes.data(), sizeof(ino));
  return (ino & (kHashedInoBit - 1)) | kHashedInoBit | kVirtualInoBit;
}

std::string BaseName(std::string_view path) {
  size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

Attributes SyntheticAttr(uint64_t ino, FileType type, uint64_t size, TimeNs time) {
  Attributes a;
  a.ino = ino;
  a.type = type;
  a.mode = type == FileType::kDirectory ? 0555 : type == FileType::kSymlink ? 0777 : 0444;
  a.uid = ::geteuid();
  a.gid = ::getegid();
  a.size = size;
  a.nlink = type == FileType::kDirectory ? 2 : 1;
  a.atime = a.mtime = a.ctime = time;
  return a;
}

}  // namespace

struct VirtualTree::Query {
  SearchRequest request;
  std::vector<SearchHit> hits;
  std::vector<std::string> link_names;
  std::vector<std::string> link_targets;
  std::string jsonl;
  TimeNs ran_at = 0;
  uint64_t commit_id = 0;  // the store's LastCommitId() when it ran
  uint64_t indexed = 0;    // the index's IndexedVersion() when it ran
};

struct VirtualTree::Node {
  enum class Kind { kQueryDir, kResults, kLink, kSnapshot, kGraphSet, kGraphFile } kind;
  uint64_t ino = 0;
  uint64_t lookups = 0;
  std::shared_ptr<const Query> query;  // kQueryDir; for the others, as last seen
  uint64_t parent = 0;                 // kResults and kLink: the query directory
  std::string name;                    // kLink: its name; kQueryDir: the query name
  std::string snapshot;                // kSnapshot
  std::shared_ptr<SnapshotView> view;
  std::string path;
  GraphGrouping grouping = GraphGrouping::kKind;  // kGraphSet, kGraphFile
  std::string group;                             // kGraphFile: its set's directory name
};

VirtualTree::VirtualTree(Store* store, Index* index, Graph* graph, std::string branch)
    : store_(store), index_(index), branch_(std::move(branch)), mounted_at_(NowNs()) {
  if (graph != nullptr) graph_.emplace(graph, branch_);
}

VirtualTree::~VirtualTree() = default;

Result<Attributes> VirtualTree::Root() {
  return SyntheticAttr(kVexfsIno, FileType::kDirectory, 0, mounted_at_);
}

Result<std::shared_ptr<VirtualTree::Node>> VirtualTree::Find(uint64_t ino) {
  std::lock_guard lock(mu_);
  auto it = nodes_.find(ino);
  if (it == nodes_.end()) return Status::NotFound("stale .vexfs inode " + std::to_string(ino));
  return it->second;
}

Result<Attributes> VirtualTree::Remember(
    const std::string& key, const std::function<Result<std::shared_ptr<Node>>()>& make) {
  uint64_t ino = InoOf(key);
  std::shared_ptr<Node> node;
  {
    std::lock_guard lock(mu_);
    auto it = nodes_.find(ino);
    if (it != nodes_.end()) node = it->second;
  }
  if (!node) {
    VEXFS_ASSIGN_OR_RETURN(node, make());
    node->ino = ino;
  }
  VEXFS_ASSIGN_OR_RETURN(Attributes attr, AttrOf(*node));
  std::lock_guard lock(mu_);
  auto [it, inserted] = nodes_.try_emplace(ino, node);
  it->second->lookups++;
  return attr;
}

void VirtualTree::Forget(uint64_t ino, uint64_t count) {
  std::lock_guard lock(mu_);
  auto it = nodes_.find(ino);
  if (it == nodes_.end()) return;
  it->second->lookups -= std::min(count, it->second->lookups);
  if (it->second->lookups == 0) nodes_.erase(it);
}

Result<std::shared_ptr<VirtualTree::Node>> VirtualTree::MakeQuery(std::string_view name) {
  if (!index_) return Status::NotSupported("this mount has no search index");
  VEXFS_ASSIGN_OR_RETURN(SearchRequest request, ParseQueryName(name));
  if (request.snapshot.empty()) request.branch = branch_;
  auto query = std::make_shared<Query>();
  // Both taken before searching: a later commit or drain is seen next time.
  query->commit_id = store_->LastCommitId();
  query->indexed = index_->IndexedVersion();
  VEXFS_ASSIGN_OR_RETURN(SearchResult result, index_->Search(request));
  query->request = request;
  query->hits = std::move(result.hits);
  query->ran_at = NowNs();
  size_t width = std::max<size_t>(2, std::to_string(request.k).size());
  std::string prefix =
      request.snapshot.empty() ? "../../../" : "../../snapshots/" + request.snapshot + "/";
  for (size_t i = 0; i < query->hits.size(); ++i) {
    const SearchHit& hit = query->hits[i];
    std::string rank = std::to_string(i + 1);
    std::string link =
        std::string(width - std::min(width, rank.size()), '0') + rank + "-" + BaseName(hit.path);
    nlohmann::json line = SearchHitJson(hit);
    line["rank"] = i + 1;
    line["name"] = link;
    query->jsonl += line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    query->link_names.push_back(std::move(link));
    query->link_targets.push_back(prefix + hit.path);
  }
  auto node = std::make_shared<Node>();
  node->kind = Node::Kind::kQueryDir;
  node->name = std::string(name);
  node->query = std::move(query);
  return node;
}

Result<std::shared_ptr<VirtualTree::Node>> VirtualTree::MakeSnapshotNode(
    const std::string& snapshot, const std::string& path) {
  auto node = std::make_shared<Node>();
  node->kind = Node::Kind::kSnapshot;
  node->snapshot = snapshot;
  node->path = path;
  VEXFS_ASSIGN_OR_RETURN(node->view, store_->OpenSnapshot(snapshot));
  return node;
}

Result<Attributes> VirtualTree::Lookup(uint64_t parent, std::string_view name) {
  if (parent == kVexfsIno) {
    if (name == "status") {
      VEXFS_ASSIGN_OR_RETURN(std::string text, StatusText());
      return SyntheticAttr(kStatusIno, FileType::kRegular, text.size(), NowNs());
    }
    if (name == "search") return SyntheticAttr(kSearchIno, FileType::kDirectory, 0, mounted_at_);
    if (name == "snapshots") {
      return SyntheticAttr(kSnapshotsIno, FileType::kDirectory, 0, mounted_at_);
    }
    if (name == "graph" && graph_) return SyntheticAttr(kGraphIno, FileType::kDirectory, 0, mounted_at_);
    return Status::NotFound("'" + std::string(name) + "' is not in .vexfs/");
  }
  if (parent == kGraphIno || parent == kByKindIno || parent == kByThreadIno) {
    return LookupInGraph(parent, name);
  }
  if (parent == kSearchIno) {
    // A query looked up again after a commit runs again: new files become findable.
    std::string key = QueryKey(name);
    if (auto known = Find(InoOf(key)); known.ok()) VEXFS_RETURN_IF_ERROR(Refresh(**known));
    return Remember(key, [&] { return MakeQuery(name); });
  }
  if (parent == kSnapshotsIno) {
    std::string snapshot(name);
    return Remember(SnapshotKey(snapshot, ""), [&] { return MakeSnapshotNode(snapshot, ""); });
  }
  VEXFS_ASSIGN_OR_RETURN(std::shared_ptr<Node> dir, Find(parent));
  if (dir->kind == Node::Kind::kQueryDir) return LookupInQuery(*dir, name);
  if (dir->kind == Node::Kind::kGraphSet) return LookupGraphFile(*dir, name);
  if (dir->kind != Node::Kind::kSnapshot) return Status::NotDirectory("not a directory");
  std::string path = JoinPath(dir->path, name);
  return Remember(SnapshotKey(dir->snapshot, path), [&]() -> Result<std::shared_ptr<Node>> {
    // Not a copy of *dir: its lookup count changes under mu_.
    auto node = std::make_shared<Node>();
    node->kind = Node::Kind::kSnapshot;
    node->snapshot = dir->snapshot;
    node->view = dir->view;
    node->path = path;
    return node;
  });
}

Result<Attributes> VirtualTree::LookupInGraph(uint64_t parent, std::string_view name) {
  if (!graph_) return Status::NotFound("this mount shows no graph");
  if (parent == kGraphIno) {
    if (name == kByKindName) return SyntheticAttr(kByKindIno, FileType::kDirectory, 0, mounted_at_);
    if (name == kByThreadName) return SyntheticAttr(kByThreadIno, FileType::kDirectory, 0, mounted_at_);
    return Status::NotFound("'" + std::string(name) + "' is not in .vexfs/graph/");
  }
  GraphGrouping grouping = parent == kByKindIno ? GraphGrouping::kKind : GraphGrouping::kThread;
  VEXFS_ASSIGN_OR_RETURN(bool exists, graph_->HasGroup(grouping, name));
  if (!exists) return Status::NotFound("no node is grouped under '" + std::string(name) + "'");
  return Remember(GraphSetKey(grouping, name), [&]() -> Result<std::shared_ptr<Node>> {
    auto node = std::make_shared<Node>();
    node->kind = Node::Kind::kGraphSet;
    node->grouping = grouping;
    node->name = std::string(name);
    return node;
  });
}

Result<Attributes> VirtualTree::LookupGraphFile(const Node& set, std::string_view name) {
  VEXFS_ASSIGN_OR_RETURN(auto text, graph_->NodeText(set.grouping, set.name, name));
  if (!text) return Status::NotFound("'" + std::string(name) + "' is not a node of this group");
  return Remember(GraphFileKey(set.grouping, set.name, name), [&]() -> Result<std::shared_ptr<Node>> {
    auto node = std::make_shared<Node>();
    node->kind = Node::Kind::kGraphFile;
    node->grouping = set.grouping;
    node->group = set.name;
    node->name = std::string(name);
    return node;
  });
}

Status VirtualTree::Refresh(Node& dir) {
  std::shared_ptr<const Query> current;
  {
    std::lock_guard lock(mu_);
    current = dir.query;
  }
  bool unchanged = current->commit_id == store_->LastCommitId();
  bool newly_indexed = current->indexed != index_->IndexedVersion();
  if (unchanged || (!newly_indexed && NowNs() - current->ran_at < kQueryMinAge)) {
    return Status::Ok();
  }
  VEXFS_ASSIGN_OR_RETURN(auto fresh, MakeQuery(dir.name));
  std::lock_guard lock(mu_);
  dir.query = fresh->query;
  return Status::Ok();
}

Result<Attributes> VirtualTree::LookupInQuery(Node& dir, std::string_view name) {
  // The kernel may hold the query directory's entry: its results are refreshed
  // here too, so a file indexed since shows up without waiting for that entry.
  VEXFS_RETURN_IF_ERROR(Refresh(dir));
  std::shared_ptr<const Query> query;
  {
    std::lock_guard lock(mu_);
    query = dir.query;
  }
  auto child = [&](Node::Kind kind) -> Result<std::shared_ptr<Node>> {
    auto node = std::make_shared<Node>();
    node->kind = kind;
    node->parent = dir.ino;
    node->name = std::string(name);
    node->query = query;
    return node;
  };
  if (name == kResultsName) {
    return Remember(ChildKey(dir.ino, name), [&] { return child(Node::Kind::kResults); });
  }
  for (const std::string& link : query->link_names) {
    if (link == name) {
      return Remember(ChildKey(dir.ino, name), [&] { return child(Node::Kind::kLink); });
    }
  }
  return Status::NotFound("'" + std::string(name) + "' is not a result of this search");
}

Result<Attributes> VirtualTree::GetAttr(uint64_t ino) {
  switch (ino) {
    case kVexfsIno:
      return Root();
    case kStatusIno:
      return Lookup(kVexfsIno, "status");
    case kSearchIno:
      return Lookup(kVexfsIno, "search");
    case kSnapshotsIno:
      return Lookup(kVexfsIno, "snapshots");
    case kGraphIno:
      return Lookup(kVexfsIno, "graph");
    case kByKindIno:
      return Lookup(kGraphIno, kByKindName);
    case kByThreadIno:
      return Lookup(kGraphIno, kByThreadName);
    default:
      break;
  }
  VEXFS_ASSIGN_OR_RETURN(std::shared_ptr<Node> node, Find(ino));
  return AttrOf(*node);
}

Result<Attributes> VirtualTree::AttrOf(const Node& node) {
  std::shared_ptr<const Query> query;
  {
    // A result file or link follows its directory's latest run, if still known.
    std::lock_guard lock(mu_);
    query = node.query;
    auto parent = nodes_.find(node.parent);
    if (node.parent != 0 && parent != nodes_.end()) query = parent->second->query;
  }
  switch (node.kind) {
    case Node::Kind::kQueryDir:
      return SyntheticAttr(node.ino, FileType::kDirectory, 0, query->ran_at);
    case Node::Kind::kResults:
      return SyntheticAttr(node.ino, FileType::kRegular, query->jsonl.size(), query->ran_at);
    case Node::Kind::kLink: {
      for (size_t i = 0; i < query->link_names.size(); ++i) {
        if (query->link_names[i] == node.name) {
          return SyntheticAttr(node.ino, FileType::kSymlink, query->link_targets[i].size(),
                               query->ran_at);
        }
      }
      return Status::NotFound("'" + node.name + "' is no longer a result of this search");
    }
    case Node::Kind::kSnapshot: {
      VEXFS_ASSIGN_OR_RETURN(Attributes attr, node.view->Stat(node.path));
      attr.ino = node.ino;
      attr.mode &= ~0222u;  // a snapshot cannot change
      return attr;
    }
    case Node::Kind::kGraphSet:
      return SyntheticAttr(node.ino, FileType::kDirectory, 0, NowNs());
    case Node::Kind::kGraphFile: {
      VEXFS_ASSIGN_OR_RETURN(auto text, graph_->NodeText(node.grouping, node.group, node.name));
      if (!text) return Status::NotFound("node '" + node.name + "' is no longer in this group");
      return SyntheticAttr(node.ino, FileType::kRegular, text->size(), NowNs());
    }
  }
  return Status::Corruption("unknown .vexfs node");
}

Result<std::vector<DirItem>> VirtualTree::List(uint64_t ino) {
  std::vector<DirItem> items;
  if (ino == kVexfsIno) {
    items = {{"search", kSearchIno, FileType::kDirectory},
             {"snapshots", kSnapshotsIno, FileType::kDirectory},
             {"status", kStatusIno, FileType::kRegular}};
    if (graph_) items.push_back({"graph", kGraphIno, FileType::kDirectory});
    return items;
  }
  if (ino == kGraphIno || ino == kByKindIno || ino == kByThreadIno) return ListGraph(ino);
  if (ino == kSearchIno) return items;  // queries are looked up by name, not listed
  if (ino == kSnapshotsIno) {
    VEXFS_ASSIGN_OR_RETURN(auto snapshots, store_->ListSnapshots());
    for (const CommitInfo& c : snapshots) {
      for (const std::string& name : c.names) {
        items.push_back({name, InoOf(SnapshotKey(name, "")), FileType::kDirectory});
      }
    }
    return items;
  }
  VEXFS_ASSIGN_OR_RETURN(std::shared_ptr<Node> node, Find(ino));
  if (node->kind == Node::Kind::kGraphSet) {
    VEXFS_ASSIGN_OR_RETURN(auto files, graph_->NodeFiles(node->grouping, node->name));
    for (std::string& f : files) {
      uint64_t child = InoOf(GraphFileKey(node->grouping, node->name, f));
      items.push_back({std::move(f), child, FileType::kRegular});
    }
    return items;
  }
  if (node->kind == Node::Kind::kQueryDir) {
    VEXFS_RETURN_IF_ERROR(Refresh(*node));
    std::shared_ptr<const Query> query;
    {
      std::lock_guard lock(mu_);
      query = node->query;
    }
    items.push_back(
        {std::string(kResultsName), InoOf(ChildKey(ino, kResultsName)), FileType::kRegular});
    for (const std::string& link : query->link_names) {
      items.push_back({link, InoOf(ChildKey(ino, link)), FileType::kSymlink});
    }
    return items;
  }
  if (node->kind != Node::Kind::kSnapshot) return Status::NotDirectory("not a directory");
  VEXFS_ASSIGN_OR_RETURN(auto entries, node->view->List(node->path));
  for (const DirEntry& e : entries) {
    items.push_back(
        {e.name, InoOf(SnapshotKey(node->snapshot, JoinPath(node->path, e.name))), e.attr.type});
  }
  return items;
}

Result<std::vector<DirItem>> VirtualTree::ListGraph(uint64_t ino) {
  if (!graph_) return Status::NotFound("this mount shows no graph");
  if (ino == kGraphIno) {
    return std::vector<DirItem>{{std::string(kByKindName), kByKindIno, FileType::kDirectory},
                                {std::string(kByThreadName), kByThreadIno, FileType::kDirectory}};
  }
  GraphGrouping grouping = ino == kByKindIno ? GraphGrouping::kKind : GraphGrouping::kThread;
  VEXFS_ASSIGN_OR_RETURN(auto groups, graph_->Groups(grouping));
  std::vector<DirItem> items;
  for (std::string& g : groups) {
    uint64_t child = InoOf(GraphSetKey(grouping, g));
    items.push_back({std::move(g), child, FileType::kDirectory});
  }
  return items;
}

Result<std::string> VirtualTree::ReadLink(uint64_t ino) {
  VEXFS_ASSIGN_OR_RETURN(std::shared_ptr<Node> node, Find(ino));
  if (node->kind == Node::Kind::kSnapshot) return node->view->ReadLink(node->path);
  if (node->kind != Node::Kind::kLink) return Status::InvalidArgument("not a symlink");
  std::lock_guard lock(mu_);
  auto parent = nodes_.find(node->parent);
  const Query& query = parent != nodes_.end() ? *parent->second->query : *node->query;
  for (size_t i = 0; i < query.link_names.size(); ++i) {
    if (query.link_names[i] == node->name) return query.link_targets[i];
  }
  return Status::NotFound("'" + node->name + "' is no longer a result of this search");
}

Result<std::optional<std::string>> VirtualTree::Generate(uint64_t ino) {
  if (ino == kStatusIno) {
    VEXFS_ASSIGN_OR_RETURN(std::string text, StatusText());
    return std::optional<std::string>(std::move(text));
  }
  if (!(ino & kHashedInoBit)) return std::optional<std::string>();
  VEXFS_ASSIGN_OR_RETURN(std::shared_ptr<Node> node, Find(ino));
  if (node->kind == Node::Kind::kGraphFile) {
    VEXFS_ASSIGN_OR_RETURN(auto text, graph_->NodeText(node->grouping, node->group, node->name));
    if (!text) return Status::NotFound("node '" + node->name + "' is no longer in this group");
    return text;
  }
  if (node->kind != Node::Kind::kResults) return std::optional<std::string>();
  std::lock_guard lock(mu_);
  auto parent = nodes_.find(node->parent);
  const Query& query = parent != nodes_.end() ? *parent->second->query : *node->query;
  return std::optional<std::string>(query.jsonl);
}

Result<std::string> VirtualTree::Read(uint64_t ino, uint64_t offset, uint64_t length) {
  VEXFS_ASSIGN_OR_RETURN(std::shared_ptr<Node> node, Find(ino));
  if (node->kind != Node::Kind::kSnapshot) return std::string();
  return node->view->Read(node->path, offset, length);
}

Result<XattrMap> VirtualTree::Xattrs(uint64_t ino) {
  if (!(ino & kHashedInoBit)) return XattrMap{};
  VEXFS_ASSIGN_OR_RETURN(std::shared_ptr<Node> node, Find(ino));
  if (node->kind != Node::Kind::kSnapshot) return XattrMap{};
  return node->view->Xattrs(node->path);
}

Result<std::string> VirtualTree::StatusText() {
  nlohmann::json out = {{"branch", branch_}, {"store", store_->path()}};
  if (index_) {
    VEXFS_ASSIGN_OR_RETURN(IndexStatus status, index_->GetStatus());
    out["index_queue"] = status.queued;
    out["embedder"] = status.embedder;
  }
  VEXFS_ASSIGN_OR_RETURN(auto log, store_->Log(branch_, 1));
  if (log.empty()) {
    out["last_snapshot"] = nullptr;
  } else {
    out["last_snapshot"] = CommitJson(log.front());
  }
  return out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace vexfs::fuse
