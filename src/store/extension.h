// The store's private side of its extension interface (vexfs/extension.h): the
// open registered tables, name checks, and how the store's own code lends its
// transactions to extensions' hooks.
//
// The rule: the store names no extension's table and includes no extension's
// code; extensions include vexfs/extension.h, never the store's private headers.
#ifndef VEXFS_STORE_EXTENSION_H_
#define VEXFS_STORE_EXTENSION_H_

#include <lmdb.h>

#include <string>
#include <string_view>

#include "vexfs/extension.h"
#include "vexfs/status.h"

namespace vexfs::internal {

class StoreImpl;
class Txn;
class TxnScope;

using vexfs::Extension;
using vexfs::TableScope;
using vexfs::TableSpec;

// A registered, open table.
struct RegisteredTable {
  std::string name;
  MDB_dbi dbi = 0;
  TableScope scope = TableScope::kGlobal;
};

// kInvalidArgument unless `name` is a valid table or extension name.
Status ValidateExtensionName(std::string_view name, const char* what);

// The store's access to a StoreTxn's insides.
struct StoreTxnAccess {
  // A StoreTxn over a transaction of the store's own (gc, fsck, a snapshot, an
  // edit), bound to `scope`'s working tree if not null; it never commits or
  // aborts it. Valid while `txn` is.
  static StoreTxn Lend(StoreImpl* impl, Txn* txn, TxnScope* scope);
  static Txn& txn(const StoreTxn& txn);
};

}  // namespace vexfs::internal

#endif  // VEXFS_STORE_EXTENSION_H_
