// The search index as a store extension (vexfs/extension.h): the tables it
// registers, its change-feed subscription, and the fsck check it attaches. Every
// part of the index reaches its own records through the handles here; the store
// names none of them.
//
// A store first opened for writing by this release, or an older store, gets the
// index's subscription on first use; a new subscription has missed every earlier
// change, so every branch and snapshot is queued for (re)checking once.
#ifndef VEXFS_INDEX_SEARCH_TABLES_H_
#define VEXFS_INDEX_SEARCH_TABLES_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "vexfs/extension.h"
#include "vexfs/store.h"

namespace vexfs::index {

// The index's tables (docs/format.md gives their keys and values).
struct IndexTables {
  Table files;        // per inode: (branch, ino) -> the version last indexed
  Table models;       // embedding model registry, and the index generation
  Table passages;     // (model, manifest id) -> passages with their vector ids
  Table vectors;      // (model, vector id) -> passage hash + floats: the insert log
  Table vector_keys;  // (model, passage hash) -> vector id
  // Format 1's queue table. A process of an older release that still has the
  // store open keeps queueing there; AdoptLegacyQueue moves its entries over.
  Table legacy_queue;
  // The index's work set: the store's change entries plus its own kinds below.
  FeedSubscription work;
};

// Work the index posts to its own feed set, besides the store's change kinds.
enum class IndexWork : char {
  kManifest = 'm',  // + 32-byte manifest id: one file version of a snapshot
};
std::string ManifestWorkEntry(const ObjectId& manifest);

// The index's tables of this open store: registered, subscribed and attached on
// the first call (one short write transaction unless the store is read-only),
// the same handles afterwards. On a read-only store that was never indexed, the
// tables are kNotFound.
Result<IndexTables> SearchTables(Store* store);

// Moves entries that an older release's process put into the format-1 queue
// table into the index's feed set (at most a few thousand per call).
Status AdoptLegacyQueue(Store* store, const IndexTables& ix);

// Queues every branch's working tree and every snapshot for indexing; with
// `forget_indexed`, working-tree files count as never indexed (a new model).
Status QueueEveryView(StoreTxn* txn, const IndexTables& ix, bool forget_indexed);

// ix files: (branch, ino) -> what the file's content was when it was indexed.
struct IndexedFile {
  ObjectId manifest;  // id of the file's manifest (content and xattrs)
  TimeNs ctime = 0;   // the inode's ctime then: a different ctime now means stale
};
std::string EncodeIndexedFile(const IndexedFile& f);
Status DecodeIndexedFile(std::string_view v, IndexedFile* f);

}  // namespace vexfs::index

#endif  // VEXFS_INDEX_SEARCH_TABLES_H_
