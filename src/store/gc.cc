// Garbage collection: mark everything reachable from refs, working trees and the
// gc roots of attached extensions, then
// delete the rest, all in one write transaction (so no concurrent writer can link
// an object between the mark and the sweep).
#include <unordered_set>

#include "store/object_graph.h"
#include "store/store_impl.h"

namespace vexfs::internal {
namespace {

using IdSet = std::unordered_set<ObjectId, ObjectIdHash>;

// Marks everything reachable from `roots`. An object that is referenced but
// cannot be decoded stops the collection: what it references is unknown, so
// deleting anything could lose data.
Status Mark(const Txn& txn, const Databases& dbs, std::vector<ObjectId> pending,
            IdSet* marked) {
  while (!pending.empty()) {
    ObjectId id = pending.back();
    pending.pop_back();
    if (!marked->insert(id).second) continue;
    VEXFS_ASSIGN_OR_RETURN(auto stored, txn.Get(dbs.objects, id.AsBytes()));
    if (!stored) continue;  // missing: nothing to keep (fsck reports it)
    Status st = AppendStoredReferences(id, *stored, &pending);
    if (!st.ok()) return st.WithContext("gc stopped; run fsck");
  }
  return Status::Ok();
}

// Deletes every object not in `marked`. The cursor lives only inside this call:
// LMDB frees a write transaction's cursors when it commits, so one closed after
// the commit would be freed twice.
Status Sweep(Txn* txn, const Databases& dbs, const IdSet& marked, const ProgressFn& progress,
             GcReport* report) {
  Cursor cursor;
  VEXFS_RETURN_IF_ERROR(cursor.Open(*txn, dbs.objects));
  VEXFS_ASSIGN_OR_RETURN(bool more, cursor.First());
  uint64_t seen = 0;
  while (more) {
    if (marked.count(ObjectId::FromBytes(cursor.key())) && cursor.key().size() == 32) {
      report->objects_kept++;
    } else {
      report->objects_freed++;
      report->bytes_freed += cursor.value().size();
      VEXFS_RETURN_IF_ERROR(cursor.DeleteCurrent());
    }
    if (progress && ++seen % 4096 == 0) progress(seen, 0);
    VEXFS_ASSIGN_OR_RETURN(more, cursor.Next());
  }
  return Status::Ok();
}

// LMDB reuses the pages a transaction freed only after a later transaction has
// committed, so without this the space gc frees would stay unusable until some
// other write commits, and a write that failed because the store was full would
// fail again right after gc. Rewriting an unchanged meta key is the smallest
// such commit. Best effort: the collection itself has already committed.
void MakeFreedPagesReusable(StoreImpl* impl) {
  Txn txn;
  if (!impl->BeginTxn(&txn, /*write=*/true).ok()) return;
  if (!txn.Put(impl->dbs().meta, kMetaFormat, kFormatVersion).ok()) return;
  (void)txn.Commit();
}

}  // namespace

Result<GcReport> CollectGarbage(StoreImpl* impl, const ProgressFn& progress) {
  // Taken first: an extension's table handles are valid only in transactions
  // that begin after they were registered.
  auto extensions = impl->extensions();
  Txn txn;
  VEXFS_RETURN_IF_ERROR(impl->BeginTxn(&txn, /*write=*/true));
  const Databases& dbs = impl->dbs();
  VEXFS_RETURN_IF_ERROR(RequireObjectKeepers(txn, *impl));
  std::vector<ObjectId> roots;
  VEXFS_RETURN_IF_ERROR(CollectRootIds(txn, dbs, &roots));
  StoreTxn lent = StoreTxnAccess::Lend(impl, &txn, nullptr);
  for (const auto& extension : extensions) {
    VEXFS_RETURN_IF_ERROR(extension->AddGcRoots(lent, &roots)
                              .WithContext("gc roots of extension '" + extension->name() + "'"));
  }
  IdSet marked;
  VEXFS_RETURN_IF_ERROR(Mark(txn, dbs, std::move(roots), &marked));
  GcReport report;
  VEXFS_RETURN_IF_ERROR(Sweep(&txn, dbs, marked, progress, &report));
  VEXFS_RETURN_IF_ERROR(txn.Commit());
  if (report.objects_freed > 0) MakeFreedPagesReusable(impl);
  return report;
}

}  // namespace vexfs::internal
