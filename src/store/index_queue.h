// The indexing queue and the per-branch record of what was indexed. They live in
// the store because every write that changes a file must enqueue it in the same
// transaction: a crash can then never lose the fact that a file needs indexing.
// The indexer (src/index/indexer.cc) drains the queue; docs/search.md explains it.
#ifndef VEXFS_STORE_INDEX_QUEUE_H_
#define VEXFS_STORE_INDEX_QUEUE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "store/lmdb.h"
#include "vexfs/status.h"
#include "vexfs/types.h"

namespace vexfs::internal {

// Queue keys start with their kind. Values are the LMDB id of the transaction
// that enqueued them (8 bytes, big-endian), so the indexer removes an entry only
// if nobody enqueued it again while it was being processed.
enum class QueueKind : char {
  kFile = 'f',    // + be32 branch + be64 ino: a file changed
  kBranch = 'b',  // + be32 branch: a working tree was replaced; rescan all of it
  kCommit = 'c',  // + 32-byte commit id: a snapshot holding content not yet indexed
  kManifest = 'm',  // + 32-byte manifest id: one file version of a snapshot
};

std::string FileQueueKey(uint32_t branch, uint64_t ino);
std::string BranchQueueKey(uint32_t branch);
std::string CommitQueueKey(const ObjectId& commit);
std::string ManifestQueueKey(const ObjectId& manifest);

Status EnqueueFile(Txn* txn, const Databases& dbs, uint32_t branch, uint64_t ino);
Status EnqueueBranch(Txn* txn, const Databases& dbs, uint32_t branch);
Status EnqueueCommit(Txn* txn, const Databases& dbs, const ObjectId& commit);
Status EnqueueManifest(Txn* txn, const Databases& dbs, const ObjectId& manifest);
// Removes `key` if its stamp is still `stamp`; true if it did.
Result<bool> DequeueIfUnchanged(Txn* txn, const Databases& dbs, std::string_view key,
                                std::string_view stamp);
// Entries waiting in the queue (all kinds).
Result<uint64_t> QueueLength(const Txn& txn, const Databases& dbs);

// True if any file of `branch`, or the branch itself, waits to be indexed.
Result<bool> BranchHasPendingWork(const Txn& txn, const Databases& dbs, uint32_t branch);

// ix_files: (branch, ino) -> what the file's content was when it was indexed.
struct IndexedFile {
  ObjectId manifest;  // id of the file's manifest (content and xattrs)
  TimeNs ctime = 0;   // the inode's ctime then: a different ctime now means stale
};
std::string IndexedFileKey(uint32_t branch, uint64_t ino);
std::string EncodeIndexedFile(const IndexedFile& f);
Status DecodeIndexedFile(std::string_view v, IndexedFile* f);

}  // namespace vexfs::internal

#endif  // VEXFS_STORE_INDEX_QUEUE_H_
