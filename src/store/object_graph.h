// The references an object makes to other objects, shared by gc (marking) and
// fsck (checking that every reference resolves).
#ifndef VEXFS_STORE_OBJECT_GRAPH_H_
#define VEXFS_STORE_OBJECT_GRAPH_H_

#include <vector>

#include "store/objects.h"

namespace vexfs::internal {

// Decodes `payload` of `type` and appends the ids it references (zero ids of
// holes excluded). kCorruption if the payload does not decode.
Status AppendReferences(ObjectType type, std::string_view payload,
                        std::vector<ObjectId>* out);

// The references of the object stored as `stored` under `id`, its checksum
// verified first. A chunk references nothing and is not decoded (reading its
// payload would cost what the chunk weighs). Shared by gc's mark and the walk
// that selects objects for another store.
Status AppendStoredReferences(const ObjectId& id, std::string_view stored,
                              std::vector<ObjectId>* out);

// Every object id the refs and the working trees point at directly.
Status CollectRootIds(const Txn& txn, const Databases& dbs, std::vector<ObjectId>* out);

}  // namespace vexfs::internal

#endif  // VEXFS_STORE_OBJECT_GRAPH_H_
