// Diff of two trees (snapshots or the working tree). Subtrees whose object ids
// are equal are skipped without being read; the working tree's clean directories
// carry their cached ids, so diffing WORKING against its last snapshot reads only
// what changed. Removed+added files with equal content become renames. Roots
// besides the file tree (extensions' data) are compared by id.
#include <algorithm>
#include <map>
#include <unordered_map>

#include "store/store_impl.h"

namespace vexfs::internal {
namespace {

struct Node {
  FileType type = FileType::kDirectory;
  uint32_t mode = 0;
  uint64_t size = 0;
  std::optional<ObjectId> id;  // content id; unknown only for dirty directories
  uint64_t ino = 0;            // working-tree side
  uint64_t rdev = 0;           // devices: a different device number is a change
};

using Children = std::map<std::string, Node>;

class DiffSource {
 public:
  virtual ~DiffSource() = default;
  virtual Result<Node> Root() = 0;
  virtual Result<Children> List(const Node& dir) = 0;
  // The roots besides the file tree, or nullopt where they have no ids yet (a
  // working tree: its extensions' data is versioned only by a snapshot).
  virtual Result<std::optional<std::map<std::string, ObjectId>>> OtherRoots() {
    return std::optional<std::map<std::string, ObjectId>>();
  }
};

class SnapshotSource : public DiffSource {
 public:
  SnapshotSource(ObjectTable objects, ObjectId commit) : objects_(objects), commit_(commit) {}
  Result<Node> Root() override {
    VEXFS_ASSIGN_OR_RETURN(Commit c, objects_.GetCommit(commit_));
    Node n;
    n.id = c.tree;
    return n;
  }
  Result<std::optional<std::map<std::string, ObjectId>>> OtherRoots() override {
    VEXFS_ASSIGN_OR_RETURN(Commit c, objects_.GetCommit(commit_));
    return std::optional<std::map<std::string, ObjectId>>(std::move(c.roots));
  }
  Result<Children> List(const Node& dir) override {
    VEXFS_ASSIGN_OR_RETURN(Tree tree, objects_.GetTree(*dir.id));
    Children out;
    for (const TreeEntry& e : tree.entries) out[e.name] = Node{e.type, e.mode, e.size, e.id, 0, e.rdev};
    return out;
  }

 private:
  ObjectTable objects_;
  ObjectId commit_;
};

class WorkingSource : public DiffSource {
 public:
  explicit WorkingSource(TxnScope* scope) : scope_(scope) {}
  Result<Node> Root() override {
    VEXFS_ASSIGN_OR_RETURN(InodeRecord rec, scope_->LoadDir(kRootIno));
    return ToNode(kRootIno, rec);
  }
  Result<Children> List(const Node& dir) override {
    VEXFS_ASSIGN_OR_RETURN(auto entries, scope_->ListEntries(dir.ino));
    Children out;
    for (const auto& [name, dv] : entries) {
      VEXFS_ASSIGN_OR_RETURN(InodeRecord rec, scope_->LoadInode(dv.ino));
      VEXFS_ASSIGN_OR_RETURN(out[name], ToNode(dv.ino, rec));
    }
    return out;
  }

 private:
  // Leaves always get an id: a dirty file's manifest id is computed, not stored.
  Result<Node> ToNode(uint64_t ino, const InodeRecord& rec) {
    Node n{rec.type, rec.mode, rec.size, std::nullopt, ino, rec.rdev};
    if (!rec.dirty && rec.cached) {
      n.id = rec.cached;
    } else if (rec.type == FileType::kSymlink) {
      n.id = ComputeObjectId(ObjectType::kChunk, rec.symlink_target);
    } else if (rec.type != FileType::kDirectory) {  // files and special files
      VEXFS_ASSIGN_OR_RETURN(Manifest m, scope_->BuildManifest(ino, rec));
      n.id = ComputeObjectId(ObjectType::kManifest, EncodeManifest(m));
    }
    return n;
  }
  TxnScope* scope_;
};

class Differ {
 public:
  Differ(DiffSource* a, DiffSource* b) : a_(a), b_(b) {}

  Status Run(std::vector<DiffEntry>* out) {
    VEXFS_ASSIGN_OR_RETURN(Node ra, a_->Root());
    VEXFS_ASSIGN_OR_RETURN(Node rb, b_->Root());
    VEXFS_RETURN_IF_ERROR(CompareDirs(ra, rb, ""));
    PairRenames();
    std::sort(entries_.begin(), entries_.end(),
              [](const DiffEntry& x, const DiffEntry& y) { return x.path < y.path; });
    *out = std::move(entries_);
    return Status::Ok();
  }

 private:
  struct Side {
    std::string path;
    Node node;
  };

  Status CompareDirs(const Node& a, const Node& b, const std::string& prefix) {
    if (a.id && b.id && *a.id == *b.id) return Status::Ok();
    VEXFS_ASSIGN_OR_RETURN(Children ca, a_->List(a));
    VEXFS_ASSIGN_OR_RETURN(Children cb, b_->List(b));
    for (const auto& [name, na] : ca) {
      auto it = cb.find(name);
      std::string path = prefix + name;
      if (it == cb.end()) {
        VEXFS_RETURN_IF_ERROR(Collect(a_, na, path, &removed_));
      } else {
        VEXFS_RETURN_IF_ERROR(CompareNodes(na, it->second, path));
      }
    }
    for (const auto& [name, nb] : cb) {
      if (!ca.count(name)) VEXFS_RETURN_IF_ERROR(Collect(b_, nb, prefix + name, &added_));
    }
    return Status::Ok();
  }

  Status CompareNodes(const Node& a, const Node& b, const std::string& path) {
    bool a_dir = a.type == FileType::kDirectory;
    bool b_dir = b.type == FileType::kDirectory;
    if (a_dir && b_dir) return CompareDirs(a, b, path + "/");
    if (a_dir != b_dir || a.type != b.type) {
      entries_.push_back({DiffEntry::Kind::kTypeChanged, path, "", b.type, ""});
      if (a_dir) VEXFS_RETURN_IF_ERROR(CollectChildren(a_, a, path, &removed_));
      if (b_dir) VEXFS_RETURN_IF_ERROR(CollectChildren(b_, b, path, &added_));
      return Status::Ok();
    }
    if (a.id != b.id || a.mode != b.mode || a.rdev != b.rdev) {
      entries_.push_back({DiffEntry::Kind::kModified, path, "", b.type, ""});
    }
    return Status::Ok();
  }

  // Records `node` and, for a directory, everything below it.
  Status Collect(DiffSource* src, const Node& node, const std::string& path,
                 std::vector<Side>* into) {
    into->push_back({path, node});
    if (node.type != FileType::kDirectory) return Status::Ok();
    return CollectChildren(src, node, path, into);
  }

  Status CollectChildren(DiffSource* src, const Node& dir, const std::string& path,
                         std::vector<Side>* into) {
    VEXFS_ASSIGN_OR_RETURN(Children children, src->List(dir));
    for (const auto& [name, child] : children) {
      VEXFS_RETURN_IF_ERROR(Collect(src, child, path + "/" + name, into));
    }
    return Status::Ok();
  }

  // Pairs removed and added non-empty files of equal content as renames.
  void PairRenames() {
    std::unordered_map<ObjectId, std::vector<size_t>, ObjectIdHash> by_id;
    for (size_t i = 0; i < removed_.size(); ++i) {
      const Node& n = removed_[i].node;
      if (n.type != FileType::kDirectory && n.size > 0 && n.id) by_id[*n.id].push_back(i);
    }
    std::vector<bool> paired(removed_.size(), false);
    for (const Side& add : added_) {
      const Node& n = add.node;
      auto it = n.type != FileType::kDirectory && n.size > 0 && n.id ? by_id.find(*n.id)
                                                                     : by_id.end();
      if (it != by_id.end() && !it->second.empty()) {
        size_t i = it->second.back();
        it->second.pop_back();
        paired[i] = true;
        entries_.push_back({DiffEntry::Kind::kRenamed, add.path, removed_[i].path, n.type, ""});
      } else {
        entries_.push_back({DiffEntry::Kind::kAdded, add.path, "", n.type, ""});
      }
    }
    for (size_t i = 0; i < removed_.size(); ++i) {
      if (!paired[i]) {
        entries_.push_back(
            {DiffEntry::Kind::kRemoved, removed_[i].path, "", removed_[i].node.type, ""});
      }
    }
  }

  DiffSource* a_;
  DiffSource* b_;
  std::vector<Side> removed_;
  std::vector<Side> added_;
  std::vector<DiffEntry> entries_;
};

Result<std::unique_ptr<DiffSource>> MakeSource(TxnScope* scope, std::string_view name) {
  if (name == kWorkingName) return std::unique_ptr<DiffSource>(new WorkingSource(scope));
  VEXFS_ASSIGN_OR_RETURN(ObjectId commit, ResolveCommit(scope->txn(), scope->dbs(), name));
  return std::unique_ptr<DiffSource>(new SnapshotSource(scope->objects(), commit));
}

// One entry per root besides the file tree that the two sides hold differently
// (compared by id; what changed inside is its extension's to say).
Status DiffOtherRoots(DiffSource* a, DiffSource* b, std::vector<DiffEntry>* out) {
  VEXFS_ASSIGN_OR_RETURN(auto roots_a, a->OtherRoots());
  VEXFS_ASSIGN_OR_RETURN(auto roots_b, b->OtherRoots());
  if (!roots_a || !roots_b) return Status::Ok();
  std::map<std::string, std::pair<std::optional<ObjectId>, std::optional<ObjectId>>> both;
  for (const auto& [name, id] : *roots_a) both[name].first = id;
  for (const auto& [name, id] : *roots_b) both[name].second = id;
  for (const auto& [name, ids] : both) {
    if (ids.first == ids.second) continue;
    DiffEntry e{!ids.first    ? DiffEntry::Kind::kAdded
                : !ids.second ? DiffEntry::Kind::kRemoved
                              : DiffEntry::Kind::kModified,
                "", "", FileType::kRegular, name};
    out->push_back(std::move(e));
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<DiffEntry>> DiffTrees(StoreImpl* impl, std::string_view a,
                                         std::string_view b) {
  TxnScope scope(impl);
  VEXFS_RETURN_IF_ERROR(scope.Begin(/*write=*/false, ""));
  VEXFS_ASSIGN_OR_RETURN(auto source_a, MakeSource(&scope, a));
  VEXFS_ASSIGN_OR_RETURN(auto source_b, MakeSource(&scope, b));
  std::vector<DiffEntry> out;
  Differ differ(source_a.get(), source_b.get());
  VEXFS_RETURN_IF_ERROR(differ.Run(&out));
  VEXFS_RETURN_IF_ERROR(DiffOtherRoots(source_a.get(), source_b.get(), &out));
  return out;
}

}  // namespace vexfs::internal
