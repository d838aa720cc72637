// TxnScope: record-level access to one branch's working tree inside one
// transaction, including dirty tracking.
#include <algorithm>

#include "common/coding.h"
#include "store/change_feed.h"
#include "store/store_impl.h"
#include "vexfs/paths.h"

namespace vexfs::internal {

Status TxnScope::Begin(bool write, std::string_view branch) {
  VEXFS_RETURN_IF_ERROR(impl_->BeginTxn(&txn_, write));
  if (branch.empty()) {
    VEXFS_ASSIGN_OR_RETURN(branch_name_, ReadHead(txn_, dbs()));
  } else {
    branch_name_ = std::string(branch);
  }
  VEXFS_ASSIGN_OR_RETURN(branch_, LoadBranch(txn_, dbs(), branch_name_));
  return Status::Ok();
}

Status TxnScope::Commit() {
  if (branch_changed_) {
    VEXFS_RETURN_IF_ERROR(SaveBranch(&txn_, dbs(), branch_name_, branch_));
  }
  return txn_.Commit();
}

Status TxnScope::SwitchBranch(std::string_view branch) {
  if (branch_changed_) {
    VEXFS_RETURN_IF_ERROR(SaveBranch(&txn_, dbs(), branch_name_, branch_));
  }
  branch_changed_ = false;
  branch_name_ = std::string(branch);
  VEXFS_ASSIGN_OR_RETURN(branch_, LoadBranch(txn_, dbs(), branch_name_));
  return Status::Ok();
}

Result<InodeRecord> TxnScope::LoadInode(uint64_t ino) {
  VEXFS_ASSIGN_OR_RETURN(auto raw, txn_.Get(dbs().inodes, InodeKey(branch_.id, ino)));
  if (!raw) return Status::NotFound("inode " + std::to_string(ino) + " not found");
  InodeRecord rec;
  // The context is built only on failure: this runs for nearly every request.
  if (Status st = DecodeInode(*raw, &rec); !st.ok()) {
    return st.WithContext("inode " + std::to_string(ino));
  }
  return rec;
}

Result<InodeRecord> TxnScope::LoadDir(uint64_t ino) {
  VEXFS_ASSIGN_OR_RETURN(InodeRecord rec, LoadInode(ino));
  if (rec.type != FileType::kDirectory) {
    return Status::NotDirectory("inode " + std::to_string(ino) + " is not a directory");
  }
  return rec;
}

Status TxnScope::SaveInode(uint64_t ino, const InodeRecord& rec) {
  return txn_.Put(dbs().inodes, InodeKey(branch_.id, ino), EncodeInode(rec));
}

uint64_t TxnScope::AllocateIno() {
  branch_changed_ = true;
  return branch_.next_ino++;
}

Status TxnScope::DeleteInode(uint64_t ino) {
  VEXFS_RETURN_IF_ERROR(DeletePrefix(&txn_, dbs().chunks, ChunkPrefix(branch_.id, ino)));
  VEXFS_RETURN_IF_ERROR(DeletePrefix(&txn_, dbs().xattrs, XattrPrefix(branch_.id, ino)));
  VEXFS_ASSIGN_OR_RETURN(bool deleted, txn_.Delete(dbs().inodes, InodeKey(branch_.id, ino)));
  (void)deleted;
  VEXFS_ASSIGN_OR_RETURN(bool was_orphan, txn_.Delete(dbs().orphans, InodeKey(branch_.id, ino)));
  VEXFS_RETURN_IF_ERROR(DeleteInodeRecords(&txn_, tables(), branch_.id, ino));
  // Subscribers learn that the inode went (whatever its type: one that was not
  // a file is nothing to them); an orphan's going was posted already.
  if (!was_orphan) return PostChange(FileChangeEntry(branch_.id, ino));
  return Status::Ok();
}

Status TxnScope::MakeOrphan(uint64_t ino) {
  // An unlinked file is in no view: extensions' records of it go now, as they
  // would with a deleted one, and subscribers learn that it went.
  VEXFS_RETURN_IF_ERROR(DeleteInodeRecords(&txn_, tables(), branch_.id, ino));
  VEXFS_RETURN_IF_ERROR(PostChange(FileChangeEntry(branch_.id, ino)));
  return txn_.Put(dbs().orphans, InodeKey(branch_.id, ino), "");
}

const std::vector<RegisteredTable>& TxnScope::tables() {
  if (!tables_) tables_ = impl_->tables();
  return *tables_;
}

Status TxnScope::PostChange(std::string_view entry) {
  if (!subscribers_) {
    VEXFS_ASSIGN_OR_RETURN(subscribers_, ListSubscribers(txn_, dbs()));
  }
  return PostToAll(&txn_, dbs(), *subscribers_, entry);
}

Result<bool> TxnScope::IsOrphan(uint64_t ino) {
  VEXFS_ASSIGN_OR_RETURN(auto found, txn_.Get(dbs().orphans, InodeKey(branch_.id, ino)));
  return found.has_value();
}

Result<std::vector<uint64_t>> TxnScope::ListOrphans() {
  std::string prefix = BranchPrefix(branch_.id);
  VEXFS_ASSIGN_OR_RETURN(auto rows, ScanPrefix(txn_, dbs().orphans, prefix));
  std::vector<uint64_t> out;
  for (const auto& [key, value] : rows) {
    if (key.size() != prefix.size() + 8) continue;
    out.push_back(DecodeBE64(std::string_view(key).substr(prefix.size())));
  }
  return out;
}

Status TxnScope::MarkDirty(uint64_t ino) {
  // Iterative walk up the parent links; stops at inodes already dirty.
  std::vector<uint64_t> pending{ino};
  while (!pending.empty()) {
    uint64_t cur = pending.back();
    pending.pop_back();
    VEXFS_ASSIGN_OR_RETURN(InodeRecord rec, LoadInode(cur));
    // A changed file is posted to the feed even when it was already dirty.
    if (cur == ino && rec.type == FileType::kRegular && rec.nlink > 0) {
      VEXFS_RETURN_IF_ERROR(PostChange(FileChangeEntry(branch_.id, ino)));
    }
    if (rec.dirty) continue;
    rec.dirty = true;
    VEXFS_RETURN_IF_ERROR(SaveInode(cur, rec));
    pending.insert(pending.end(), rec.parents.begin(), rec.parents.end());
  }
  return Status::Ok();
}

Status TxnScope::MarkClean(uint64_t ino, const ObjectId& id) {
  VEXFS_ASSIGN_OR_RETURN(InodeRecord rec, LoadInode(ino));
  rec.dirty = false;
  rec.cached = id;
  return SaveInode(ino, rec);
}

Result<std::optional<DirentValue>> TxnScope::FindEntry(uint64_t parent,
                                                       std::string_view name) {
  VEXFS_ASSIGN_OR_RETURN(auto raw, txn_.Get(dbs().dirents, DirentKey(branch_.id, parent, name)));
  if (!raw) return std::optional<DirentValue>();
  DirentValue dv;
  VEXFS_RETURN_IF_ERROR(DecodeDirent(*raw, &dv));
  return std::optional<DirentValue>(dv);
}

Status TxnScope::PutEntry(uint64_t parent, std::string_view name, const DirentValue& value) {
  return txn_.Put(dbs().dirents, DirentKey(branch_.id, parent, name), EncodeDirent(value));
}

Status TxnScope::DeleteEntry(uint64_t parent, std::string_view name) {
  VEXFS_ASSIGN_OR_RETURN(bool deleted,
                         txn_.Delete(dbs().dirents, DirentKey(branch_.id, parent, name)));
  if (!deleted) return Status::NotFound("entry '" + std::string(name) + "' not found");
  return Status::Ok();
}

Result<std::vector<std::pair<std::string, DirentValue>>> TxnScope::ListEntries(
    uint64_t parent) {
  std::string prefix = DirentPrefix(branch_.id, parent);
  VEXFS_ASSIGN_OR_RETURN(auto rows, ScanPrefix(txn_, dbs().dirents, prefix));
  std::vector<std::pair<std::string, DirentValue>> out;
  out.reserve(rows.size());
  for (auto& [key, value] : rows) {
    DirentValue dv;
    VEXFS_RETURN_IF_ERROR(DecodeDirent(value, &dv));
    out.emplace_back(key.substr(prefix.size()), dv);
  }
  return out;
}

Result<bool> TxnScope::DirIsEmpty(uint64_t ino) {
  std::string prefix = DirentPrefix(branch_.id, ino);
  Cursor cursor;
  VEXFS_RETURN_IF_ERROR(cursor.Open(txn_, dbs().dirents));
  VEXFS_ASSIGN_OR_RETURN(bool found, cursor.Seek(prefix));
  return !found || cursor.key().substr(0, prefix.size()) != prefix;
}

Result<uint64_t> TxnScope::Resolve(std::string_view path) {
  VEXFS_ASSIGN_OR_RETURN(auto parts, SplitStorePath(path));
  uint64_t ino = kRootIno;
  std::string walked;
  for (const std::string& part : parts) {
    VEXFS_ASSIGN_OR_RETURN(auto entry, FindEntry(ino, part));
    walked += (walked.empty() ? "" : "/") + part;
    if (!entry) return Status::NotFound("'" + walked + "' does not exist");
    if (&part != &parts.back() && entry->type != FileType::kDirectory) {
      return Status::NotDirectory("'" + walked + "' is not a directory");
    }
    ino = entry->ino;
  }
  return ino;
}

Result<std::optional<ObjectId>> TxnScope::GetChunk(uint64_t ino, uint64_t index) {
  VEXFS_ASSIGN_OR_RETURN(auto raw, txn_.Get(dbs().chunks, ChunkKey(branch_.id, ino, index)));
  if (!raw) return std::optional<ObjectId>();
  if (raw->size() != 32) return Status::Corruption("malformed chunk reference");
  return std::optional<ObjectId>(ObjectId::FromBytes(*raw));
}

Status TxnScope::SetChunk(uint64_t ino, uint64_t index, const std::optional<ObjectId>& id) {
  std::string key = ChunkKey(branch_.id, ino, index);
  if (id) return txn_.Put(dbs().chunks, key, id->AsBytes());
  VEXFS_ASSIGN_OR_RETURN(bool deleted, txn_.Delete(dbs().chunks, key));
  (void)deleted;
  return Status::Ok();
}

Result<std::vector<std::pair<uint64_t, ObjectId>>> TxnScope::ListChunks(uint64_t ino) {
  std::string prefix = ChunkPrefix(branch_.id, ino);
  VEXFS_ASSIGN_OR_RETURN(auto rows, ScanPrefix(txn_, dbs().chunks, prefix));
  std::vector<std::pair<uint64_t, ObjectId>> out;
  out.reserve(rows.size());
  for (auto& [key, value] : rows) {
    if (key.size() != prefix.size() + 8 || value.size() != 32) {
      return Status::Corruption("malformed chunk reference of inode " + std::to_string(ino));
    }
    out.emplace_back(DecodeBE64(std::string_view(key).substr(prefix.size())),
                     ObjectId::FromBytes(value));
  }
  return out;
}

namespace {

// The chunk index of `key` if it is one of the chunk keys under `prefix` (one
// inode's), nullopt if it is not; kCorruption for a malformed one.
Result<std::optional<uint64_t>> ChunkIndexOf(std::string_view key, std::string_view prefix,
                                             uint64_t ino) {
  if (key.substr(0, prefix.size()) != prefix) return std::optional<uint64_t>();
  if (key.size() != prefix.size() + 8) {
    return Status::Corruption("malformed chunk key of inode " + std::to_string(ino));
  }
  return std::optional<uint64_t>(DecodeBE64(key.substr(prefix.size())));
}

}  // namespace

Result<std::optional<uint64_t>> TxnScope::FirstStoredChunk(uint64_t ino, uint64_t index) {
  Cursor cursor;
  VEXFS_RETURN_IF_ERROR(cursor.Open(txn_, dbs().chunks));
  VEXFS_ASSIGN_OR_RETURN(bool found, cursor.Seek(ChunkKey(branch_.id, ino, index)));
  if (!found) return std::optional<uint64_t>();
  return ChunkIndexOf(cursor.key(), ChunkPrefix(branch_.id, ino), ino);
}

Result<uint64_t> TxnScope::FirstMissingChunk(uint64_t ino, uint64_t index) {
  const std::string prefix = ChunkPrefix(branch_.id, ino);
  Cursor cursor;
  VEXFS_RETURN_IF_ERROR(cursor.Open(txn_, dbs().chunks));
  // Keys sort by index (big-endian), so stored chunks from `index` on come in
  // order: the first gap in the run is the answer.
  VEXFS_ASSIGN_OR_RETURN(bool more, cursor.Seek(ChunkKey(branch_.id, ino, index)));
  while (more) {
    VEXFS_ASSIGN_OR_RETURN(std::optional<uint64_t> at, ChunkIndexOf(cursor.key(), prefix, ino));
    if (at != index) break;
    ++index;
    VEXFS_ASSIGN_OR_RETURN(more, cursor.Next());
  }
  return index;
}

Result<XattrMap> TxnScope::LoadXattrs(uint64_t ino) {
  std::string prefix = XattrPrefix(branch_.id, ino);
  VEXFS_ASSIGN_OR_RETURN(auto rows, ScanPrefix(txn_, dbs().xattrs, prefix));
  XattrMap out;
  for (auto& [key, value] : rows) out[key.substr(prefix.size())] = std::move(value);
  return out;
}

Result<Manifest> TxnScope::BuildManifest(uint64_t ino, const InodeRecord& rec) {
  Manifest m;
  m.size = rec.size;
  m.chunk_size = kChunkSize;
  m.chunks.resize((rec.size + kChunkSize - 1) / kChunkSize);
  VEXFS_ASSIGN_OR_RETURN(auto chunks, ListChunks(ino));
  for (const auto& [index, id] : chunks) {
    if (index >= m.chunks.size()) {
      return Status::Corruption("inode " + std::to_string(ino) + " has a chunk past its end");
    }
    m.chunks[index] = id;
  }
  VEXFS_ASSIGN_OR_RETURN(m.xattrs, LoadXattrs(ino));
  return m;
}

}  // namespace vexfs::internal
