// Moving snapshots between stores as their objects (agent bundles, remotes):
// which objects one store sends so that another holds some snapshots, and how
// the other admits them, all verified and all or nothing. Objects travel as
// the store keeps them (type, encoding, checksum, payload compressed as
// stored: docs/format.md), so nothing is recompressed on either side, and each
// is proven by its id (the SHA-256 of its type and payload) before it is kept.
#ifndef VEXFS_OBJECT_TRANSFER_H_
#define VEXFS_OBJECT_TRANSFER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vexfs/status.h"
#include "vexfs/types.h"

#pragma GCC visibility push(default)

namespace vexfs {

class Store;

// One object: its id and its stored bytes.
using StoredObjectVisitor = std::function<Status(const ObjectId& id, std::string_view stored)>;

// Calls `visit` once with each object a store needs to hold the commits `want`
// (snapshot commit ids) and their history, less what a store holding the
// commits `have` holds already (each with all it reaches). A commit comes
// before what it reaches. The walk costs what differs, not what the stores
// hold (docs/agent-bundle.md). The bytes are valid during the call only.
// kNotFound for a `want` that is not a commit here; `have` ids this store does
// not hold are skipped; kCorruption for a wanted object missing or damaged.
Status SelectObjects(Store& store, const std::vector<ObjectId>& want,
                     const std::vector<ObjectId>& have, const StoredObjectVisitor& visit);

// Calls `visit` with each object `ids` names, as stored, all read in one read
// transaction of `store`: what a caller that planned a selection (sizes first,
// bytes after) reads the second time. kNotFound names the first missing.
Status ReadStoredObjects(Store& store, const std::vector<ObjectId>& ids, const StoredObjectVisitor& visit);

// Admits objects from another store in one write transaction: nothing is in
// the store until Commit returns ok, and an import destroyed uncommitted
// leaves the store as it was. It holds the store's write lock meanwhile: other
// writers wait, and the thread that began it must not write to the store
// through anything else until it ends (it would wait for itself). Use it from
// that one thread.
class ObjectImport {
 public:
  static Result<std::unique_ptr<ObjectImport>> Begin(Store& store);
  ~ObjectImport();
  ObjectImport(const ObjectImport&) = delete;
  ObjectImport& operator=(const ObjectImport&) = delete;

  // Proves `stored` is object `id` (decodes it and recomputes the SHA-256 id)
  // and adds it; kCorruption naming the object if it is not.
  Status Add(const ObjectId& id, std::string_view stored);
  // kNotFound unless `id` is a commit this import added or the store holds
  // (kInvalidArgument if it is another kind of object): what a caller checks
  // before pointing a branch at it.
  Status RequireCommit(const ObjectId& id);
  // Checks the import is whole (each object an added one references is added
  // or already here: kNotFound names the first that is neither, as when an
  // incremental import's base is missing) and that the store has every
  // extension whose data the added commits carry (kNotSupported names it),
  // names each snapshot (only commits of the import: kInvalidArgument for
  // another; a name already naming another commit is kAlreadyExists), tells
  // the store's subscribers (the search index) about the commits new to it,
  // and commits.
  Status Commit(const std::vector<std::pair<std::string, ObjectId>>& snapshot_names);

  uint64_t objects_added() const;  // new to this store (not already here)
  uint64_t bytes_added() const;    // their stored bytes

 private:
  struct Rep;
  explicit ObjectImport(std::unique_ptr<Rep> rep);
  std::unique_ptr<Rep> rep_;
};

}  // namespace vexfs

#pragma GCC visibility pop

#endif  // VEXFS_OBJECT_TRANSFER_H_
