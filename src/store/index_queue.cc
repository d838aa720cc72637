// Keys and records of the indexing queue and of indexed files.
#include "store/index_queue.h"

#include "common/coding.h"
#include "store/records.h"

namespace vexfs::internal {
namespace {

std::string TxnStamp(const Txn& txn) {
  Encoder e;
  e.PutFixed64BE(mdb_txn_id(txn.raw()));
  return e.Take();
}

Status Enqueue(Txn* txn, const Databases& dbs, const std::string& key) {
  return txn->Put(dbs.ix_queue, key, TxnStamp(*txn));
}

}  // namespace

std::string FileQueueKey(uint32_t branch, uint64_t ino) {
  return static_cast<char>(QueueKind::kFile) + InodeKey(branch, ino);
}

std::string BranchQueueKey(uint32_t branch) {
  return static_cast<char>(QueueKind::kBranch) + BranchPrefix(branch);
}

std::string CommitQueueKey(const ObjectId& commit) {
  return static_cast<char>(QueueKind::kCommit) + std::string(commit.AsBytes());
}

std::string ManifestQueueKey(const ObjectId& manifest) {
  return static_cast<char>(QueueKind::kManifest) + std::string(manifest.AsBytes());
}

Status EnqueueFile(Txn* txn, const Databases& dbs, uint32_t branch, uint64_t ino) {
  return Enqueue(txn, dbs, FileQueueKey(branch, ino));
}

Status EnqueueBranch(Txn* txn, const Databases& dbs, uint32_t branch) {
  return Enqueue(txn, dbs, BranchQueueKey(branch));
}

Status EnqueueCommit(Txn* txn, const Databases& dbs, const ObjectId& commit) {
  return Enqueue(txn, dbs, CommitQueueKey(commit));
}

Status EnqueueManifest(Txn* txn, const Databases& dbs, const ObjectId& manifest) {
  return Enqueue(txn, dbs, ManifestQueueKey(manifest));
}

Result<bool> DequeueIfUnchanged(Txn* txn, const Databases& dbs, std::string_view key,
                                std::string_view stamp) {
  VEXFS_ASSIGN_OR_RETURN(auto now, txn->Get(dbs.ix_queue, key));
  if (!now || *now != stamp) return false;
  return txn->Delete(dbs.ix_queue, key);
}

Result<uint64_t> QueueLength(const Txn& txn, const Databases& dbs) {
  MDB_stat stat;
  VEXFS_RETURN_IF_ERROR(LmdbStatus(mdb_stat(txn.raw(), dbs.ix_queue, &stat), "count queue"));
  return uint64_t{stat.ms_entries};
}

Result<bool> BranchHasPendingWork(const Txn& txn, const Databases& dbs, uint32_t branch) {
  VEXFS_ASSIGN_OR_RETURN(auto whole, txn.Get(dbs.ix_queue, BranchQueueKey(branch)));
  if (whole) return true;
  Cursor cursor;
  VEXFS_RETURN_IF_ERROR(cursor.Open(txn, dbs.ix_queue));
  std::string prefix = static_cast<char>(QueueKind::kFile) + BranchPrefix(branch);
  VEXFS_ASSIGN_OR_RETURN(bool found, cursor.Seek(prefix));
  return found && cursor.key().starts_with(prefix);
}

std::string IndexedFileKey(uint32_t branch, uint64_t ino) { return InodeKey(branch, ino); }

std::string EncodeIndexedFile(const IndexedFile& f) {
  Encoder e;
  e.PutId(f.manifest);
  e.PutSignedVarint(f.ctime);
  return e.Take();
}

Status DecodeIndexedFile(std::string_view v, IndexedFile* f) {
  Decoder d(v);
  int64_t ctime = 0;
  if (!d.GetId(&f->manifest) || !d.GetSignedVarint(&ctime) || !d.done()) {
    return Status::Corruption("indexed-file record is malformed");
  }
  f->ctime = ctime;
  return Status::Ok();
}

}  // namespace vexfs::internal
