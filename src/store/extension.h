// Extension points of the store: how a component above it (the search index, the
// memory graph, anything later) keeps its own data in the store without the
// store knowing it. Modelled on RocksDB's column families: an extension
//   - registers named tables (RegisterTables in store_impl.h), which it reads and
//     writes inside the store's own transactions, so its records commit
//     atomically with the file changes they describe;
//   - subscribes to the change feed (change_feed.h), which tells it durably what
//     every write transaction changed;
//   - while attached to an open store (StoreImpl::Attach), contributes gc roots
//     (objects its records keep alive) and fsck checks of its records;
//   - if it versions data, adds a root of its own to every snapshot (a node or
//     chunk object named after it, built from its working state) and rebuilds its
//     working state from a snapshot's root on restore, so one snapshot covers
//     files and its data atomically.
// Table and subscription registrations are durable (meta keys, docs/format.md),
// so they hold in every process that opens the store, including processes that
// never load the extension's code. A process sees new subscriptions at its next
// write, but tables registered by another process only at its next open: an
// extension registers its tables when the store is created or first opened with
// it, before other processes write (a process that opened the store earlier would
// leave that extension's per-inode and per-branch records of what it deletes). Gc and fsck hooks are code, so they act only
// where the extension is attached; a store whose registered extension keeps
// objects alive refuses gc where it is not attached (collecting without its roots
// would delete its objects), and one that versions data refuses snapshots,
// restores and branches from snapshots where it is not attached (they would
// leave its data out).
//
// The rule: the store names no extension's table and includes no extension's
// code; extensions include this header and store_impl.h, never the reverse.
#ifndef VEXFS_STORE_EXTENSION_H_
#define VEXFS_STORE_EXTENSION_H_

#include <lmdb.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vexfs/status.h"
#include "vexfs/store.h"
#include "vexfs/types.h"

namespace vexfs::internal {

class Txn;
class TxnScope;

// What the store does with a registered table's records on its own.
enum class TableScope : uint8_t {
  // The store never touches them.
  kGlobal = 0,
  // Keys begin with InodeKey(branch, ino) (records.h): the records belong to that
  // inode of that working tree. They go when the inode is deleted or orphaned,
  // when the working tree is replaced (restore) or the branch deleted, and are
  // copied when the branch's working tree is copied to a new branch.
  kPerInode = 1,
  // Keys begin with BranchPrefix(branch): one working tree's state. They go when
  // the working tree is replaced or the branch deleted, and are copied when the
  // branch's working tree is copied to a new branch.
  kPerBranch = 2,
};

struct TableSpec {
  std::string name;  // the LMDB database name: 1-64 bytes of [a-z0-9_], unique per store
  TableScope scope = TableScope::kGlobal;
};

// A registered, open table.
struct RegisteredTable {
  std::string name;
  MDB_dbi dbi = 0;
  TableScope scope = TableScope::kGlobal;
};

// The code half of an extension, attached to one open store. Calls come from
// whichever thread runs gc or fsck, inside that operation's transaction: an
// implementation must be thread-safe and must not begin transactions of its own.
class Extension {
 public:
  virtual ~Extension() = default;
  // 1-64 bytes of [a-z0-9_]; the name its registration is recorded under.
  virtual const std::string& name() const = 0;
  // Whether its records reference objects that must survive gc. Recorded
  // durably at Attach: gc refuses to run where such an extension is not attached.
  virtual bool keeps_objects() const { return false; }
  // Appends the ids of objects its records keep alive (gc marks everything they
  // reference too). An error stops gc, which then deletes nothing.
  virtual Status AddGcRoots(const Txn& txn, std::vector<ObjectId>* roots) {
    (void)txn;
    (void)roots;
    return Status::Ok();
  }
  // Checks its own records, appending a sentence per problem to report->problems.
  // An error means its records could not be read at all.
  virtual Status Check(const Txn& txn, FsckReport* report) {
    (void)txn;
    (void)report;
    return Status::Ok();
  }

  // Whether it versions data in snapshots (the hooks below). Recorded durably at
  // Attach like keeps_objects.
  virtual bool versions_data() const { return false; }
  // Inside CreateSnapshot's write transaction, on `scope`'s branch: the root of
  // that branch's current data, an object it has stored (a node or a chunk), or
  // nullopt when it has none. An error fails the snapshot.
  virtual Result<std::optional<ObjectId>> SnapshotRoot(TxnScope& scope) {
    (void)scope;
    return std::optional<ObjectId>();
  }
  // Inside the write transaction of a restore or of a branch made from a
  // snapshot, after the working tree was replaced (kPerBranch and kPerInode
  // records of the branch are gone): makes the branch's data that of `root`, the
  // snapshot's root of this extension (nullopt: the snapshot had none).
  virtual Status RestoreRoot(TxnScope& scope, const std::optional<ObjectId>& root) {
    (void)scope;
    (void)root;
    return Status::Ok();
  }
};

// kInvalidArgument unless `name` is a valid table or extension name.
Status ValidateExtensionName(std::string_view name, const char* what);

}  // namespace vexfs::internal

#endif  // VEXFS_STORE_EXTENSION_H_
