// RAII wrappers over LMDB: the environment with its named databases, transactions
// that abort unless committed, and cursors. Every LMDB error becomes a Status here
// and nowhere else (MDB_MAP_FULL -> kNoSpace, EACCES -> kReadOnly, ...).
#ifndef VEXFS_STORE_LMDB_H_
#define VEXFS_STORE_LMDB_H_

#include <lmdb.h>
#include <sys/types.h>

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "vexfs/status.h"

namespace vexfs::internal {

// Maps an LMDB return code to a Status, and an errno value (LMDB passes those
// through) with ErrnoToStatus; `what` says what was being done.
Status LmdbStatus(int rc, std::string_view what);

// The handle of a table that a store opened read-only does not have (an older
// format, or an extension that never ran on it): Txn and Cursor read it as
// empty and refuse writes to it. LMDB itself never hands out 0 for a named
// database (0 is its free-page table).
inline constexpr MDB_dbi kAbsentTable = 0;

// The named databases of a store (docs/format.md lists their keys and values).
struct Databases {
  MDB_dbi meta = 0;      // store-wide settings and counters
  MDB_dbi objects = 0;   // ObjectId -> stored object
  MDB_dbi refs = 0;      // "HEAD", "branch/<name>", "snap/<name>"
  MDB_dbi inodes = 0;    // (branch, ino) -> inode record
  MDB_dbi dirents = 0;   // (branch, parent ino, name) -> child ino
  MDB_dbi chunks = 0;    // (branch, ino, chunk index) -> ObjectId
  MDB_dbi xattrs = 0;    // (branch, ino, name) -> value
  MDB_dbi orphans = 0;   // (branch, ino) -> "": files unlinked while still open
  // (subscriber, change) -> stamp: the change feed (change_feed.h). kAbsentTable
  // in a format-1 store opened read-only, which has no feed yet.
  MDB_dbi feed = 0;
};

// True for the name of one of the tables above: no extension may register it.
bool IsStoreTableName(std::string_view name);

class LmdbEnv {
 public:
  LmdbEnv() = default;
  ~LmdbEnv();
  LmdbEnv(const LmdbEnv&) = delete;
  LmdbEnv& operator=(const LmdbEnv&) = delete;

  // Opens (creating the files if needed) the environment in `dir`. `no_lock` is
  // for stores on read-only media, where LMDB cannot write its lock file.
  // kBusy when this process has `dir` open already (LMDB allows one open per
  // process; see lmdb.cc).
  Status Open(const std::string& dir, uint64_t map_size, bool sync, bool read_only,
              bool no_lock = false);
  void Close();
  MDB_env* env() const { return env_; }
  const Databases& dbs() const { return dbs_; }
  bool read_only() const { return read_only_; }

 private:
  Status OpenDatabases();

  MDB_env* env_ = nullptr;
  Databases dbs_;
  bool read_only_ = false;
  // The directory this environment holds open in the process-wide set, and
  // the process that opened it (a forked child must not close it).
  std::optional<std::pair<dev_t, ino_t>> claimed_dir_;
  pid_t opened_by_ = 0;
};

class Cursor;

// A transaction. Destruction aborts it unless Commit() succeeded.
class Txn {
 public:
  Txn() = default;
  ~Txn();
  Txn(Txn&& other) noexcept;
  Txn& operator=(Txn&&) = delete;
  Txn(const Txn&) = delete;

  Status Begin(const LmdbEnv& env, bool write);
  Status Commit();
  void Abort();

  bool writable() const { return write_; }
  MDB_txn* raw() const { return txn_; }

  // Value of `key`, or nullopt when absent. The view lives until the txn ends or
  // the next write to the same key.
  Result<std::optional<std::string_view>> Get(MDB_dbi dbi, std::string_view key) const;
  Status Put(MDB_dbi dbi, std::string_view key, std::string_view value);
  // Stores `parts`, one after another, as the value of `key`: copied once,
  // straight into the map (MDB_RESERVE), so a large value is not first joined
  // in a string of its own.
  Status PutJoined(MDB_dbi dbi, std::string_view key,
                   std::initializer_list<std::string_view> parts);
  // True if it inserted, false if the key already existed (value untouched).
  Result<bool> PutIfAbsent(MDB_dbi dbi, std::string_view key, std::string_view value);
  // True if it deleted, false if the key was absent.
  Result<bool> Delete(MDB_dbi dbi, std::string_view key);

 private:
  MDB_txn* txn_ = nullptr;
  bool write_ = false;
};

// Iterates keys in order. Views returned stay valid until the cursor moves.
class Cursor {
 public:
  ~Cursor();
  Status Open(const Txn& txn, MDB_dbi dbi);
  // Positions at the first key >= `key`. False at the end.
  Result<bool> Seek(std::string_view key);
  Result<bool> First();
  Result<bool> Next();
  std::string_view key() const { return ToView(key_); }
  std::string_view value() const { return ToView(value_); }
  // Deletes the current entry; the next Next() returns the entry after it.
  Status DeleteCurrent();

 private:
  static std::string_view ToView(const MDB_val& v) {
    return {static_cast<const char*>(v.mv_data), v.mv_size};
  }
  Result<bool> Move(MDB_cursor_op op);

  MDB_cursor* cursor_ = nullptr;
  MDB_val key_{0, nullptr};
  MDB_val value_{0, nullptr};
};

}  // namespace vexfs::internal

#endif  // VEXFS_STORE_LMDB_H_
