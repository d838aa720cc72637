// The objects one store sends another so that it holds some commits: every
// object they reach, their history included, less what the other holds
// already. What the other holds is given as commits: a store holds each of its
// commits with everything the commit reaches (it admits nothing whose
// references it lacks, and gc keeps what a ref reaches), so an object a held
// commit reaches is skipped with everything below it. The walk costs what
// differs, not what the stores hold: each commit goes down beside its parents,
// level by level, and what both sides hold at a level is dropped from both.
#ifndef VEXFS_STORE_TRANSFER_OBJECT_SELECTION_H_
#define VEXFS_STORE_TRANSFER_OBJECT_SELECTION_H_

#include <vector>

#include "store/lmdb.h"
#include "vexfs/object_transfer.h"

namespace vexfs::internal {

// Calls `visit` with each selected object once, a commit before what it
// reaches. kNotFound for a `want` that is not a commit of this store; `have`
// ids this store does not hold are skipped (the other store may hold commits
// this one never saw). kCorruption for an object a wanted commit reaches that
// is missing or damaged (run fsck).
Status SelectObjects(const Txn& txn, const Databases& dbs, const std::vector<ObjectId>& want,
                     const std::vector<ObjectId>& have, const StoredObjectVisitor& visit);

}  // namespace vexfs::internal

#endif  // VEXFS_STORE_TRANSFER_OBJECT_SELECTION_H_
