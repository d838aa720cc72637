// fsck: verifies every object (hash, decoding, references), every ref, every
// working-tree record and the change feed; then each attached extension's own
// check. Problems are collected as sentences; nothing here fails
// because the store is bad, only because it cannot be read at all.
#include <unordered_map>
#include <unordered_set>

#include "common/coding.h"
#include "store/change_feed.h"
#include "store/object_graph.h"
#include "store/store_impl.h"

namespace vexfs::internal {
namespace {

using IdSet = std::unordered_set<ObjectId, ObjectIdHash>;

class Checker {
 public:
  Checker(const Txn& txn, const Databases& dbs, FsckReport* report, const ProgressFn& progress)
      : txn_(txn), dbs_(dbs), report_(report), progress_(progress) {}

  Status Run() {
    VEXFS_RETURN_IF_ERROR(CheckObjects());
    VEXFS_RETURN_IF_ERROR(CheckRefs());
    VEXFS_RETURN_IF_ERROR(CheckWorkingTrees());
    return CheckFeed();
  }

  void ExpectObject(const ObjectId& id, const std::string& holder) {
    if (!present_.count(id)) Problem(holder + " references missing object " + id.ToHex());
  }

 private:
  void Problem(std::string text) { report_->problems.push_back(std::move(text)); }

  Status CheckObjects() {
    std::vector<std::pair<ObjectId, ObjectId>> edges;  // (from, to)
    Cursor cursor;
    VEXFS_RETURN_IF_ERROR(cursor.Open(txn_, dbs_.objects));
    VEXFS_ASSIGN_OR_RETURN(bool more, cursor.First());
    while (more) {
      CheckOneObject(cursor.key(), cursor.value(), &edges);
      if (progress_ && report_->objects_checked % 1024 == 0) {
        progress_(report_->objects_checked, 0);
      }
      VEXFS_ASSIGN_OR_RETURN(more, cursor.Next());
    }
    for (const auto& [from, to] : edges) ExpectObject(to, "object " + from.ToHex());
    return Status::Ok();
  }

  void CheckOneObject(std::string_view key, std::string_view stored,
                      std::vector<std::pair<ObjectId, ObjectId>>* edges) {
    report_->objects_checked++;
    if (key.size() != 32) {
      Problem("object table holds a key of " + std::to_string(key.size()) + " bytes");
      return;
    }
    ObjectId id = ObjectId::FromBytes(key);
    present_.insert(id);
    ObjectType type;
    std::string payload;
    Status st = VerifyStoredObject(id, stored, &type, &payload, Verify::kFullHash);
    std::vector<ObjectId> refs;
    if (st.ok()) st = AppendReferences(type, payload, &refs).WithContext("object " + id.ToHex());
    if (!st.ok()) {
      Problem(st.message());
      return;
    }
    if (type == ObjectType::kCommit) commits_.insert(id);
    for (const ObjectId& to : refs) edges->emplace_back(id, to);
  }

  Status CheckRefs() {
    VEXFS_ASSIGN_OR_RETURN(auto refs, ScanPrefix(txn_, dbs_.refs, ""));
    for (const auto& [key, value] : refs) {
      report_->refs_checked++;
      if (key == kHeadRef) {
        head_ = value;
      } else if (key.rfind(kSnapshotRefPrefix, 0) == 0) {
        CheckCommitRef(key, value);
      } else if (key.rfind(kBranchRefPrefix, 0) == 0) {
        CheckBranchRef(key, value);
      } else {
        Problem("unknown ref '" + key + "'");
      }
    }
    if (!branch_names_.count(head_)) Problem("HEAD names missing branch '" + head_ + "'");
    return Status::Ok();
  }

  void CheckCommitRef(const std::string& ref, std::string_view value) {
    if (value.size() != 32) {
      Problem("ref '" + ref + "' is malformed");
    } else if (!commits_.count(ObjectId::FromBytes(value))) {
      Problem("ref '" + ref + "' points at missing commit " + ObjectId::FromBytes(value).ToHex());
    }
  }

  void CheckBranchRef(const std::string& ref, std::string_view value) {
    BranchRecord rec;
    Status st = DecodeBranch(value, &rec);
    if (!st.ok()) {
      Problem("ref '" + ref + "': " + st.message());
      return;
    }
    branch_names_.insert(ref.substr(kBranchRefPrefix.size()));
    branches_[rec.id] = rec;
    if (rec.head && !commits_.count(*rec.head)) {
      Problem("ref '" + ref + "' head points at missing commit " + rec.head->ToHex());
    }
  }

  Status CheckWorkingTrees() {
    VEXFS_ASSIGN_OR_RETURN(auto inodes, ScanPrefix(txn_, dbs_.inodes, ""));
    std::unordered_map<std::string, InodeRecord> by_key;  // InodeKey -> record
    for (const auto& [key, value] : inodes) {
      report_->inodes_checked++;
      std::string where = RecordName(key, "inode");
      InodeRecord rec;
      Status st = DecodeInode(value, &rec);
      if (!st.ok()) {
        Problem(where + ": " + st.message());
        continue;
      }
      if (rec.cached) ExpectObject(*rec.cached, where);
      by_key[key] = std::move(rec);
    }
    VEXFS_RETURN_IF_ERROR(CheckDirents(by_key));
    return CheckChunks(by_key);
  }

  Status CheckDirents(const std::unordered_map<std::string, InodeRecord>& inodes) {
    VEXFS_ASSIGN_OR_RETURN(auto dirents, ScanPrefix(txn_, dbs_.dirents, ""));
    std::unordered_map<std::string, uint32_t> links;
    for (const auto& [key, value] : dirents) {
      DirentValue dv;
      std::string where = RecordName(key, "directory entry");
      if (key.size() < 12 || !DecodeDirent(value, &dv).ok()) {
        Problem(where + " is malformed");
        continue;
      }
      std::string child = key.substr(0, 4) + InodeKey(0, dv.ino).substr(4);
      auto it = inodes.find(child);
      if (it == inodes.end()) {
        Problem(where + " '" + key.substr(12) + "' points at missing inode " +
                std::to_string(dv.ino));
      } else if (it->second.type != dv.type) {
        Problem(where + " '" + key.substr(12) + "' has the wrong type");
      }
      links[child]++;
    }
    VEXFS_ASSIGN_OR_RETURN(auto orphan_rows, ScanPrefix(txn_, dbs_.orphans, ""));
    std::unordered_set<std::string> orphans;
    for (const auto& [key, value] : orphan_rows) {
      auto it = inodes.find(key);
      if (it == inodes.end() || it->second.nlink != 0) {
        Problem(RecordName(key, "orphan record") + " names no unlinked inode");
      }
      orphans.insert(key);
    }
    for (const auto& [key, rec] : inodes) {
      bool root = DecodeBE64(std::string_view(key).substr(4)) == kRootIno;
      bool linked = links.count(key) || orphans.count(key);  // an orphan is open somewhere
      if (!root && !linked) Problem(RecordName(key, "inode") + " is not linked");
      if (rec.type != FileType::kDirectory && links.count(key) && links[key] != rec.nlink) {
        Problem(RecordName(key, "inode") + " has nlink " + std::to_string(rec.nlink) +
                " but " + std::to_string(links[key]) + " links");
      }
    }
    return Status::Ok();
  }

  Status CheckChunks(const std::unordered_map<std::string, InodeRecord>& inodes) {
    VEXFS_ASSIGN_OR_RETURN(auto chunks, ScanPrefix(txn_, dbs_.chunks, ""));
    for (const auto& [key, value] : chunks) {
      std::string where = RecordName(key, "chunk reference");
      if (key.size() != 20 || value.size() != 32) {
        Problem(where + " is malformed");
        continue;
      }
      auto owner = inodes.find(key.substr(0, 12));
      if (owner == inodes.end()) {
        Problem(where + " belongs to no inode");
      } else if (owner->second.type != FileType::kRegular) {
        Problem(where + " belongs to a " + FileTypeName(owner->second.type) +
                ", which has no content");
      }
      ExpectObject(ObjectId::FromBytes(value), where);
    }
    return Status::Ok();
  }

  // Every change-feed entry belongs to a subscriber and carries an 8-byte stamp.
  Status CheckFeed() {
    VEXFS_ASSIGN_OR_RETURN(auto subscribers, ListSubscribers(txn_, dbs_));
    std::unordered_set<std::string> prefixes;
    for (uint16_t id : subscribers) prefixes.insert(FeedSet(dbs_.feed, id).prefix());
    Cursor cursor;
    VEXFS_RETURN_IF_ERROR(cursor.Open(txn_, dbs_.feed));
    VEXFS_ASSIGN_OR_RETURN(bool more, cursor.First());
    while (more) {
      std::string_view key = cursor.key();
      if (key.size() < 3 || !prefixes.count(std::string(key.substr(0, 2)))) {
        Problem("the change feed holds an entry of no subscriber");
      } else if (cursor.value().size() != 8) {
        Problem("a change-feed entry has a malformed stamp");
      }
      VEXFS_ASSIGN_OR_RETURN(more, cursor.Next());
    }
    return Status::Ok();
  }

  // "inode 7 of branch 'main'" from a key that starts (branch id, ino).
  std::string RecordName(const std::string& key, const char* what) {
    if (key.size() < 12) return std::string(what) + " with a short key";
    uint32_t branch = static_cast<uint32_t>(DecodeBE64(std::string(4, '\0') + key.substr(0, 4)));
    uint64_t ino = DecodeBE64(std::string_view(key).substr(4, 8));
    std::string name = "#" + std::to_string(branch);
    for (const auto& [n, rec] : branches_by_name()) {
      if (rec.id == branch) name = n;
    }
    return std::string(what) + " of inode " + std::to_string(ino) + " on branch '" + name + "'";
  }

  const std::unordered_map<std::string, BranchRecord>& branches_by_name() {
    if (named_.empty()) {
      auto refs = ScanPrefix(txn_, dbs_.refs, kBranchRefPrefix);
      if (refs.ok()) {
        for (const auto& [key, value] : *refs) {
          BranchRecord rec;
          if (DecodeBranch(value, &rec).ok()) named_[key.substr(kBranchRefPrefix.size())] = rec;
        }
      }
    }
    return named_;
  }

  const Txn& txn_;
  const Databases& dbs_;
  FsckReport* report_;
  const ProgressFn& progress_;
  IdSet present_;
  IdSet commits_;
  std::string head_;
  std::unordered_set<std::string> branch_names_;
  std::unordered_map<uint32_t, BranchRecord> branches_;
  std::unordered_map<std::string, BranchRecord> named_;
};

// An attached extension's own check, and that every object it keeps alive exists.
Status CheckExtension(const StoreTxn& txn, Extension& extension, Checker& checker,
                      FsckReport* report) {
  std::string what = "extension '" + extension.name() + "'";
  VEXFS_RETURN_IF_ERROR(extension.Check(txn, report).WithContext("check " + what));
  std::vector<ObjectId> roots;
  VEXFS_RETURN_IF_ERROR(extension.AddGcRoots(txn, &roots).WithContext("gc roots of " + what));
  for (const ObjectId& id : roots) checker.ExpectObject(id, what);
  return Status::Ok();
}

}  // namespace

Result<FsckReport> CheckStore(StoreImpl* impl, const ProgressFn& progress) {
  // Taken first: an extension's table handles are valid only in transactions
  // that begin after they were registered.
  auto extensions = impl->extensions();
  Txn txn;
  VEXFS_RETURN_IF_ERROR(impl->BeginTxn(&txn, /*write=*/false));
  FsckReport report;
  Checker checker(txn, impl->dbs(), &report, progress);
  VEXFS_RETURN_IF_ERROR(checker.Run());
  StoreTxn lent = StoreTxnAccess::Lend(impl, &txn, nullptr);
  for (const auto& extension : extensions) {
    VEXFS_RETURN_IF_ERROR(CheckExtension(lent, *extension, checker, &report));
  }
  return report;
}

}  // namespace vexfs::internal
