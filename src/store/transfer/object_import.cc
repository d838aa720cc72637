// Admitting another store's objects, verified and all or nothing
// (vexfs/object_transfer.h).
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "store/change_feed.h"
#include "store/object_graph.h"
#include "store/objects.h"
#include "store/records.h"
#include "store/store_impl.h"
#include "store/transfer/object_selection.h"
#include "vexfs/extension.h"
#include "vexfs/object_transfer.h"
#include "vexfs/paths.h"

namespace vexfs {

using internal::ImplOf;

Status SelectObjects(Store& store, const std::vector<ObjectId>& want,
                     const std::vector<ObjectId>& have, const StoredObjectVisitor& visit) {
  internal::StoreImpl* impl = ImplOf(&store);
  internal::Txn txn;
  VEXFS_RETURN_IF_ERROR(impl->BeginTxn(&txn, /*write=*/false));
  return internal::SelectObjects(txn, impl->dbs(), want, have, visit);
}

Status ReadStoredObjects(Store& store, const std::vector<ObjectId>& ids, const StoredObjectVisitor& visit) {
  internal::StoreImpl* impl = ImplOf(&store);
  internal::Txn txn;
  VEXFS_RETURN_IF_ERROR(impl->BeginTxn(&txn, /*write=*/false));
  for (const ObjectId& id : ids) {
    VEXFS_ASSIGN_OR_RETURN(auto stored, txn.Get(impl->dbs().objects, id.AsBytes()));
    if (!stored) return Status::NotFound("object " + id.ToHex() + " is no longer in the store (collected meanwhile?)");
    VEXFS_RETURN_IF_ERROR(visit(id, *stored));
  }
  return Status::Ok();
}

struct ObjectImport::Rep {
  Store* store = nullptr;
  internal::StoreImpl* impl = nullptr;
  internal::Txn txn;
  // Each reference an added object makes, to the first object making it: what
  // Commit checks is here.
  std::unordered_map<ObjectId, ObjectId, ObjectIdHash> referenced;
  std::unordered_set<ObjectId, ObjectIdHash> added;
  // Every commit added (names may point only at these), and those new to the
  // store (the index is told of these only), in the order they came.
  std::unordered_set<ObjectId, ObjectIdHash> commits;
  std::vector<ObjectId> new_commits;
  // The extensions whose data the added commits carry (their roots' names),
  // each with a commit that names it.
  std::map<std::string, ObjectId> extensions;
  uint64_t objects_added = 0;
  uint64_t bytes_added = 0;

  // A commit's roots name an extension the store has not attached: its data
  // would sit in the store where nothing can read, keep or restore it.
  Status CheckExtensions() {
    for (const auto& [name, commit] : extensions) {
      if (FindExtension(store, name) == nullptr) {
        return Status::NotSupported("commit " + commit.ToHex() + " carries data of extension '" + name +
                                    "', which this program does not have");
      }
    }
    return Status::Ok();
  }

  Status CheckWhole() {
    for (const auto& [id, by] : referenced) {
      if (added.count(id)) continue;
      VEXFS_ASSIGN_OR_RETURN(auto here, txn.Get(impl->dbs().objects, id.AsBytes()));
      if (!here) {
        return Status::NotFound("object " + id.ToHex() + ", referenced by object " + by.ToHex() +
                                ", is in neither the import nor this store (an incremental import "
                                "whose base this store lacks?)");
      }
    }
    return Status::Ok();
  }

  Status Name(const std::string& name, const ObjectId& commit) {
    VEXFS_RETURN_IF_ERROR(ValidateRefName(name, "snapshot"));
    VEXFS_ASSIGN_OR_RETURN(auto named, internal::FindSnapshot(txn, impl->dbs(), name));
    if (named && *named == commit) return Status::Ok();
    if (named) {
      return Status::AlreadyExists("snapshot '" + name + "' already names commit " + named->ToHex() +
                                   ", not the imported " + commit.ToHex());
    }
    // Names come with the commits they name: an import names nothing the
    // store held before it.
    if (!commits.count(commit)) {
      return Status::InvalidArgument("snapshot name '" + name + "' is for commit " + commit.ToHex() +
                                     ", which is not in the import");
    }
    return txn.Put(impl->dbs().refs, internal::SnapshotRef(name), commit.AsBytes());
  }

  // `id` is a commit, added or already here: what a branch may point at.
  Status CheckIsCommit(const ObjectId& id, const std::string& what) {
    if (commits.count(id)) return Status::Ok();
    VEXFS_ASSIGN_OR_RETURN(auto here, txn.Get(impl->dbs().objects, id.AsBytes()));
    if (!here) return Status::NotFound("commit " + id.ToHex() + " " + what + " is not imported");
    internal::ObjectType type;
    std::string payload;
    VEXFS_RETURN_IF_ERROR(internal::VerifyStoredObject(id, *here, &type, &payload));
    if (type != internal::ObjectType::kCommit) {
      return Status::InvalidArgument("object " + id.ToHex() + " " + what + " is not a commit");
    }
    return Status::Ok();
  }
};

ObjectImport::ObjectImport(std::unique_ptr<Rep> rep) : rep_(std::move(rep)) {}
ObjectImport::~ObjectImport() = default;  // an uncommitted txn aborts with the Rep

Result<std::unique_ptr<ObjectImport>> ObjectImport::Begin(Store& store) {
  auto rep = std::make_unique<Rep>();
  rep->store = &store;
  rep->impl = ImplOf(&store);
  if (rep->impl->options().read_only) return Status::ReadOnly("the store is open read-only");
  VEXFS_RETURN_IF_ERROR(rep->impl->BeginTxn(&rep->txn, /*write=*/true));
  return std::unique_ptr<ObjectImport>(new ObjectImport(std::move(rep)));
}

Status ObjectImport::Add(const ObjectId& id, std::string_view stored) {
  if (rep_->txn.raw() == nullptr) return Status::InvalidArgument("the import is committed already");
  if (rep_->added.count(id)) return Status::Ok();
  internal::ObjectType type;
  std::string payload;
  VEXFS_RETURN_IF_ERROR(internal::VerifyStoredObject(id, stored, &type, &payload, internal::Verify::kFullHash)
                            .WithContext("imported object " + id.ToHex()));
  std::vector<ObjectId> refs;
  if (type != internal::ObjectType::kChunk) {
    VEXFS_RETURN_IF_ERROR(internal::AppendReferences(type, payload, &refs)
                              .WithContext("imported object " + id.ToHex()));
  }
  for (const ObjectId& ref : refs) rep_->referenced.emplace(ref, id);
  if (type == internal::ObjectType::kCommit) {
    internal::Commit commit;
    VEXFS_RETURN_IF_ERROR(internal::DecodeCommit(payload, &commit).WithContext("imported commit " + id.ToHex()));
    for (const auto& [name, root] : commit.roots) rep_->extensions.emplace(name, id);
    rep_->commits.insert(id);
  }
  rep_->added.insert(id);
  VEXFS_ASSIGN_OR_RETURN(bool inserted, rep_->txn.PutIfAbsent(rep_->impl->dbs().objects, id.AsBytes(), stored));
  if (inserted) {
    rep_->objects_added++;
    rep_->bytes_added += stored.size();
    if (type == internal::ObjectType::kCommit) rep_->new_commits.push_back(id);
  }
  return Status::Ok();
}

Status ObjectImport::RequireCommit(const ObjectId& id) {
  if (rep_->txn.raw() == nullptr) return Status::InvalidArgument("the import is committed already");
  return rep_->CheckIsCommit(id, "the import points at");
}

Status ObjectImport::Commit(const std::vector<std::pair<std::string, ObjectId>>& snapshot_names) {
  if (rep_->txn.raw() == nullptr) return Status::InvalidArgument("the import is committed already");
  VEXFS_RETURN_IF_ERROR(rep_->CheckWhole());
  VEXFS_RETURN_IF_ERROR(rep_->CheckExtensions());
  for (const auto& [name, commit] : snapshot_names) VEXFS_RETURN_IF_ERROR(rep_->Name(name, commit));
  VEXFS_ASSIGN_OR_RETURN(std::vector<uint16_t> subscribers,
                         internal::ListSubscribers(rep_->txn, rep_->impl->dbs()));
  for (const ObjectId& commit : rep_->new_commits) {
    VEXFS_RETURN_IF_ERROR(internal::PostToAll(&rep_->txn, rep_->impl->dbs(), subscribers,
                                              SnapshotChangeEntry(commit)));
  }
  return rep_->txn.Commit();
}

uint64_t ObjectImport::objects_added() const { return rep_->objects_added; }
uint64_t ObjectImport::bytes_added() const { return rep_->bytes_added; }

}  // namespace vexfs
