// What a Python vexfs.Store holds while it is open: a vexfs::Db (the store, its
// search index opened by the first search, its background indexer) and the
// branch its calls work on, with the calls themselves in plain C++. Nothing here touches Python, so the bindings run every
// call with the GIL released.
//
// Thread-safety: every method may be called from many threads at once (Db is
// thread-safe).
#ifndef VEXFS_PYTHON_OPEN_STORE_H_
#define VEXFS_PYTHON_OPEN_STORE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vexfs/db.h"
#include "vexfs/index.h"
#include "vexfs/status.h"
#include "vexfs/store.h"

namespace vexfs::python {

struct OpenOptions {
  bool create = false;     // make a new store (it must not exist yet)
  bool read_only = false;  // refuse every write with kReadOnly
  bool sync = true;        // durable when each call returns (StoreOptions::sync_on_commit)
  uint64_t map_size = 0;   // 0: the store's recorded size (new stores: the default)
  std::string branch;      // the branch calls work on; "" follows the checked-out one
  bool background_indexing = true;  // DbOptions::background_indexing
};

// The open Db, shared by every OpenStore of it: LMDB allows one open of a store
// per process, so handles on other branches share this.
class StoreCore {
 public:
  explicit StoreCore(std::unique_ptr<Db> db) : db_(std::move(db)) {}
  Db& db() { return *db_; }
  Store& store() { return db_->store(); }
  Result<Index*> index() { return db_->index(); }

 private:
  std::unique_ptr<Db> db_;
};

class OpenStore {
 public:
  static Result<std::shared_ptr<OpenStore>> Open(const std::string& path,
                                                 const OpenOptions& options);
  OpenStore(std::shared_ptr<StoreCore> core, std::string branch)
      : core_(std::move(core)), branch_(std::move(branch)) {}
  OpenStore(const OpenStore&) = delete;
  OpenStore& operator=(const OpenStore&) = delete;

  // The same store, its calls working on `branch` (kNotFound if there is none).
  Result<std::shared_ptr<OpenStore>> OnBranch(const std::string& branch) const;

  Store& store() { return core_->store(); }
  Db& db() { return core_->db(); }
  const std::string& branch() const { return branch_; }
  bool read_only() const { return core_->db().read_only(); }

  // Creates or replaces the file at `path` (missing parents made) and sets each
  // of `meta` as a metadata key (what search's `where` matches), in one
  // transaction. Other metadata of a replaced file stays.
  Status Write(const std::string& path, const std::string& data,
               const std::map<std::string, std::string>& meta);
  // Up to `length` bytes from `offset` (nullopt: to the end) of the working tree,
  // or of snapshot `at` when it is not empty.
  Result<std::string> Read(const std::string& path, uint64_t offset,
                           std::optional<uint64_t> length, const std::string& at);
  Result<std::vector<DirEntry>> List(const std::string& path, const std::string& at);
  Result<Attributes> Stat(const std::string& path, const std::string& at);
  // Whether anything is at `path`; an unknown snapshot `at` is still an error.
  Result<bool> Exists(const std::string& path, const std::string& at);
  // The file's metadata keys and values (the user.vexfs.meta.* xattrs).
  Result<std::map<std::string, std::string>> Meta(const std::string& path,
                                                  const std::string& at);
  Status MakeDirectory(const std::string& path, bool parents);
  Status Remove(const std::string& path, bool recursive);
  Status Move(const std::string& from, const std::string& to, bool replace);

  // Differences from `a` to `b` (snapshot names or ids, or "WORKING"). WORKING is
  // the checked-out branch's tree, so with another branch chosen at open it is
  // refused (kNotSupported) rather than silently meaning a different tree.
  Result<std::vector<DiffEntry>> Diff(const std::string& a, const std::string& b);

  // Indexes what is queued first when `wait` (not on a read-only store, which
  // searches what was indexed). The request's branch is this store's when it
  // names neither a branch nor a snapshot.
  Result<SearchResult> Search(SearchRequest request, bool wait);
  Result<IndexStatus> GetIndexStatus();
  Status WaitIndexed(const ProgressFn& progress = nullptr);

 private:
  Result<std::unique_ptr<TreeView>> View(const std::string& at);

  const std::shared_ptr<StoreCore> core_;
  const std::string branch_;
};

}  // namespace vexfs::python

#endif  // VEXFS_PYTHON_OPEN_STORE_H_
