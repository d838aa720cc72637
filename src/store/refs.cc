// Refs (HEAD, branches, snapshot names) and prefix scans over any database.
#include "store/store_impl.h"

namespace vexfs::internal {

Result<std::string> ReadHead(const Txn& txn, const Databases& dbs) {
  VEXFS_ASSIGN_OR_RETURN(auto head, txn.Get(dbs.refs, kHeadRef));
  if (!head) return Status::Corruption("the store has no HEAD ref");
  return std::string(*head);
}

Result<std::optional<BranchRecord>> FindBranch(const Txn& txn, const Databases& dbs,
                                               std::string_view name) {
  VEXFS_ASSIGN_OR_RETURN(auto raw, txn.Get(dbs.refs, BranchRef(name)));
  if (!raw) return std::optional<BranchRecord>();
  BranchRecord rec;
  if (Status st = DecodeBranch(*raw, &rec); !st.ok()) {
    return st.WithContext("branch '" + std::string(name) + "'");
  }
  return std::optional<BranchRecord>(rec);
}

Result<BranchRecord> LoadBranch(const Txn& txn, const Databases& dbs, std::string_view name) {
  VEXFS_ASSIGN_OR_RETURN(auto rec, FindBranch(txn, dbs, name));
  if (!rec) return Status::NotFound("branch '" + std::string(name) + "' not found");
  return *rec;
}

Status SaveBranch(Txn* txn, const Databases& dbs, std::string_view name,
                  const BranchRecord& rec) {
  return txn->Put(dbs.refs, BranchRef(name), EncodeBranch(rec));
}

Result<std::optional<ObjectId>> FindSnapshot(const Txn& txn, const Databases& dbs,
                                             std::string_view name) {
  VEXFS_ASSIGN_OR_RETURN(auto raw, txn.Get(dbs.refs, SnapshotRef(name)));
  if (!raw) return std::optional<ObjectId>();
  if (raw->size() != 32) {
    return Status::Corruption("snapshot ref '" + std::string(name) + "' is malformed");
  }
  return std::optional<ObjectId>(ObjectId::FromBytes(*raw));
}

Result<ObjectId> ResolveCommit(const Txn& txn, const Databases& dbs,
                               std::string_view name_or_id) {
  if (name_or_id.empty()) return Status::InvalidArgument("snapshot name is empty");
  VEXFS_ASSIGN_OR_RETURN(auto named, FindSnapshot(txn, dbs, name_or_id));
  if (named) return *named;
  if (name_or_id.size() == 64) {
    auto id = ObjectId::FromHex(name_or_id);
    if (id.ok()) {
      VEXFS_ASSIGN_OR_RETURN(auto stored, txn.Get(dbs.objects, id->AsBytes()));
      // The id of an intact object of another type (a tree, say) names no
      // snapshot; only a damaged object is corruption.
      if (stored) {
        ObjectType type;
        std::string payload;
        VEXFS_RETURN_IF_ERROR(VerifyStoredObject(*id, *stored, &type, &payload));
        if (type == ObjectType::kCommit) {
          Commit commit;
          VEXFS_RETURN_IF_ERROR(DecodeCommit(payload, &commit).WithContext(id->ToHex()));
          return *id;
        }
      }
    }
  }
  return Status::NotFound("snapshot '" + std::string(name_or_id) + "' not found");
}

Result<std::vector<std::pair<std::string, std::string>>> ScanPrefix(const Txn& txn,
                                                                    MDB_dbi dbi,
                                                                    std::string_view prefix) {
  std::vector<std::pair<std::string, std::string>> out;
  Cursor cursor;
  VEXFS_RETURN_IF_ERROR(cursor.Open(txn, dbi));
  VEXFS_ASSIGN_OR_RETURN(bool more, cursor.Seek(prefix));
  while (more && cursor.key().substr(0, prefix.size()) == prefix) {
    out.emplace_back(std::string(cursor.key()), std::string(cursor.value()));
    VEXFS_ASSIGN_OR_RETURN(more, cursor.Next());
  }
  return out;
}

Status DeletePrefix(Txn* txn, MDB_dbi dbi, std::string_view prefix) {
  Cursor cursor;
  VEXFS_RETURN_IF_ERROR(cursor.Open(*txn, dbi));
  VEXFS_ASSIGN_OR_RETURN(bool more, cursor.Seek(prefix));
  while (more && cursor.key().substr(0, prefix.size()) == prefix) {
    VEXFS_RETURN_IF_ERROR(cursor.DeleteCurrent());
    VEXFS_ASSIGN_OR_RETURN(more, cursor.Next());
  }
  return Status::Ok();
}

}  // namespace vexfs::internal
