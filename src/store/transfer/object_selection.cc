// Choosing the objects another store lacks (object_selection.h).
#include "store/transfer/object_selection.h"

#include <unordered_set>

#include "store/object_graph.h"
#include "store/objects.h"

namespace vexfs::internal {
namespace {

using IdSet = std::unordered_set<ObjectId, ObjectIdHash>;

class Selector {
 public:
  Selector(const Txn& txn, const Databases& dbs, const StoredObjectVisitor& visit)
      : txn_(txn), dbs_(dbs), visit_(visit) {}

  Status Run(const std::vector<ObjectId>& want, const std::vector<ObjectId>& have) {
    VEXFS_ASSIGN_OR_RETURN(IdSet held, HeldCommits(have));
    for (const ObjectId& id : want) {
      VEXFS_ASSIGN_OR_RETURN(std::optional<Commit> commit, ReadCommit(id));
      if (!commit) return Status::NotFound("commit " + id.ToHex() + " is not in this store");
    }
    // The wanted commits and their history down to what the other side holds.
    std::vector<ObjectId> pending = want;
    IdSet queued;
    while (!pending.empty()) {
      ObjectId id = pending.back();
      pending.pop_back();
      if (held.count(id) || !queued.insert(id).second) continue;
      VEXFS_ASSIGN_OR_RETURN(std::optional<Commit> commit, ReadCommit(id));
      if (!commit) return Missing(id, "a parent of a wanted commit");
      VEXFS_RETURN_IF_ERROR(SendCommit(id, *commit));
      for (const ObjectId& parent : commit->parents) pending.push_back(parent);
    }
    return Status::Ok();
  }

 private:
  // Every commit `have` reaches through parents, among those this store holds.
  Result<IdSet> HeldCommits(const std::vector<ObjectId>& have) {
    IdSet held;
    std::vector<ObjectId> pending = have;
    while (!pending.empty()) {
      ObjectId id = pending.back();
      pending.pop_back();
      if (held.count(id)) continue;
      VEXFS_ASSIGN_OR_RETURN(std::optional<Commit> commit, ReadCommit(id));
      if (!commit) continue;  // one this store never saw: it cannot prune anything
      held.insert(id);
      for (const ObjectId& parent : commit->parents) pending.push_back(parent);
    }
    return held;
  }

  // The commit under `id`, nullopt if this store has no such object.
  Result<std::optional<Commit>> ReadCommit(const ObjectId& id) {
    VEXFS_ASSIGN_OR_RETURN(auto stored, txn_.Get(dbs_.objects, id.AsBytes()));
    if (!stored) return std::optional<Commit>();
    ObjectType type;
    std::string payload;
    VEXFS_RETURN_IF_ERROR(VerifyStoredObject(id, *stored, &type, &payload));
    if (type != ObjectType::kCommit) return Status::InvalidArgument("object " + id.ToHex() + " is not a commit");
    Commit commit;
    VEXFS_RETURN_IF_ERROR(DecodeCommit(payload, &commit).WithContext("commit " + id.ToHex()));
    return std::optional<Commit>(std::move(commit));
  }

  static std::vector<ObjectId> RootsOf(const Commit& commit) {
    std::vector<ObjectId> roots = {commit.tree};
    for (const auto& [name, root] : commit.roots) roots.push_back(root);
    return roots;
  }

  Status SendCommit(const ObjectId& id, const Commit& commit) {
    VEXFS_RETURN_IF_ERROR(Send(id, "a wanted commit"));
    std::vector<ObjectId> beside;
    for (const ObjectId& parent : commit.parents) {
      VEXFS_ASSIGN_OR_RETURN(std::optional<Commit> before, ReadCommit(parent));
      if (!before) return Missing(parent, "a parent of commit " + id.ToHex());
      for (const ObjectId& root : RootsOf(*before)) beside.push_back(root);
    }
    return Descend(RootsOf(commit), beside);
  }

  // Goes down `mine` (this commit's objects) and `theirs` (its parents')
  // together. At each level what both hold is dropped from both: below it
  // everything is equal too. The rest of mine is sent, unless sent already,
  // and both go one level down. A subtree that moved to another depth is not
  // recognised and travels again, which costs bytes, never correctness.
  Status Descend(std::vector<ObjectId> mine, std::vector<ObjectId> theirs) {
    while (!mine.empty()) {
      IdSet mine_set(mine.begin(), mine.end()), their_set(theirs.begin(), theirs.end());
      std::vector<ObjectId> next_mine, next_theirs;
      for (const ObjectId& id : their_set) {
        if (!mine_set.count(id)) VEXFS_RETURN_IF_ERROR(AppendChildren(id, /*required=*/false, &next_theirs));
      }
      for (const ObjectId& id : mine_set) {
        if (their_set.count(id) || sent_.count(id)) continue;
        VEXFS_RETURN_IF_ERROR(Send(id, "an object a wanted commit reaches"));
        VEXFS_RETURN_IF_ERROR(AppendChildren(id, /*required=*/true, &next_mine));
      }
      mine = std::move(next_mine);
      theirs = std::move(next_theirs);
    }
    return Status::Ok();
  }

  Status Send(const ObjectId& id, std::string_view what) {
    if (!sent_.insert(id).second) return Status::Ok();
    VEXFS_ASSIGN_OR_RETURN(auto stored, txn_.Get(dbs_.objects, id.AsBytes()));
    if (!stored) return Missing(id, what);
    return visit_(id, *stored);
  }

  // The objects `id` references (none for a chunk). One that is missing is
  // corruption on the wanted side (`required`) and nothing on the other.
  Status AppendChildren(const ObjectId& id, bool required, std::vector<ObjectId>* out) {
    VEXFS_ASSIGN_OR_RETURN(auto stored, txn_.Get(dbs_.objects, id.AsBytes()));
    if (!stored) return required ? Missing(id, "an object a wanted commit reaches") : Status::Ok();
    return AppendStoredReferences(id, *stored, out);
  }

  static Status Missing(const ObjectId& id, std::string_view what) {
    return Status::Corruption("object " + id.ToHex() + ", " + std::string(what) +
                              ", is missing from this store; run fsck");
  }

  const Txn& txn_;
  const Databases& dbs_;
  const StoredObjectVisitor& visit_;
  IdSet sent_;
};

}  // namespace

Status SelectObjects(const Txn& txn, const Databases& dbs, const std::vector<ObjectId>& want,
                     const std::vector<ObjectId>& have, const StoredObjectVisitor& visit) {
  return Selector(txn, dbs, visit).Run(want, have);
}

}  // namespace vexfs::internal
