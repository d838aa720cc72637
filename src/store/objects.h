// Immutable objects: their encodings (chunk, file manifest, tree, commit) and the
// object table that stores them by content hash, compressed, and verifies every
// read. docs/format.md gives the grammar.
#ifndef VEXFS_STORE_OBJECTS_H_
#define VEXFS_STORE_OBJECTS_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "store/lmdb.h"
#include "vexfs/status.h"
#include "vexfs/types.h"

namespace vexfs::internal {

// File data is cut into fixed-size chunks so a write at any offset rewrites only
// the chunks it touches.
inline constexpr uint64_t kChunkSize = 64 * 1024;

enum class ObjectType : uint8_t {
  kChunk = 'c',     // raw file bytes (or a symlink's target)
  kManifest = 'f',  // a file: size, chunk ids, xattrs
  kTree = 't',      // a directory: sorted entries, xattrs
  kCommit = 'm',    // a snapshot: root tree, other roots, parents, time, message, metadata
  kNode = 'n',      // an extension's versioned data: references to other objects + bytes
};

// An extension's versioned data (extension.h): the objects it references (gc
// keeps them, fsck checks them) and bytes only the extension reads. Extensions
// build their snapshot roots from nodes and chunks, so the store can collect and
// verify them without the extension's code.
struct Node {
  std::vector<ObjectId> refs;
  std::string data;
};

struct Manifest {
  uint64_t size = 0;
  uint64_t chunk_size = kChunkSize;
  std::vector<ObjectId> chunks;  // all-zero id marks a hole (zeros)
  XattrMap xattrs;
};

struct TreeEntry {
  std::string name;
  FileType type = FileType::kRegular;
  uint32_t mode = 0;
  uint32_t uid = 0;
  uint32_t gid = 0;
  TimeNs mtime = 0;
  uint64_t size = 0;
  ObjectId id;  // tree, manifest (files and special files: their xattrs), or
                // (symlink) chunk holding the target
  uint64_t rdev = 0;  // device number; stored only for character and block devices
};

struct Tree {
  std::vector<TreeEntry> entries;  // sorted by name, names unique
  XattrMap xattrs;                 // the directory's own xattrs
};

struct Commit {
  ObjectId tree;
  TreeEntry root;  // the root directory's attributes (name empty, id == tree)
  std::vector<ObjectId> parents;
  TimeNs time = 0;
  std::string branch;
  std::string message;
  std::map<std::string, std::string> meta;
  // Roots besides the file tree: extension name -> its data's root object (a
  // node or a chunk). A commit with none is encoded as format 1 was.
  std::map<std::string, ObjectId> roots;
};

std::string EncodeManifest(const Manifest& m);
std::string EncodeTree(const Tree& t);
std::string EncodeCommit(const Commit& c);
Status DecodeManifest(std::string_view payload, Manifest* m);
Status DecodeTree(std::string_view payload, Tree* t);
Status DecodeCommit(std::string_view payload, Commit* c);
std::string EncodeNode(const Node& n);
Status DecodeNode(std::string_view payload, Node* n);

// The id an object of `type` with `payload` has: SHA-256(type byte || payload).
ObjectId ComputeObjectId(ObjectType type, std::string_view payload);
// The value the object table stores for it (docs/format.md): type tag, encoding,
// checksum, and the payload raw or zstd-compressed. `id` must be its id.
std::string EncodeStoredObject(const ObjectId& id, ObjectType type, std::string_view payload);
// The same value in two parts, header then body, so that a store copies a large
// payload once, into the map, and not first into a string of its own.
struct StoredParts {
  std::string header;      // type tag, encoding, checksums, sizes
  std::string compressed;  // the zstd frame; empty: the body is the payload itself
  std::string_view Body(std::string_view payload) const {
    return compressed.empty() ? payload : std::string_view(compressed);
  }
};
StoredParts EncodeStoredParts(const ObjectId& id, ObjectType type, std::string_view payload);

// An object encoded before it is stored: its id and its stored value. This is
// the costly part of a Put (SHA-256 and compression) and needs no transaction,
// so a large write prepares its chunks on several cores at once. `payload`
// views the caller's bytes, which must outlive the PutPrepared.
struct PreparedObject {
  ObjectId id;
  StoredParts parts;
  std::string_view payload;
};
// Prepares each payload as an object of `type`, on as many threads as there are
// cores (capped) when there are enough payloads to share out.
std::vector<PreparedObject> PrepareObjects(ObjectType type,
                                           const std::vector<std::string_view>& payloads);

// Reads and writes objects inside a transaction.
class ObjectTable {
 public:
  ObjectTable(Txn* txn, MDB_dbi dbi) : txn_(txn), dbi_(dbi) {}

  // Stores the object unless present (identical content is stored once).
  Result<ObjectId> Put(ObjectType type, std::string_view payload);
  // Stores a prepared object unless present.
  Status PutPrepared(const PreparedObject& object);
  // The verified payload. kNotFound if absent, kCorruption if the stored bytes do
  // not hash to `id`, do not decompress, or are not of `expected` type.
  Result<std::string> Get(const ObjectId& id, ObjectType expected) const;
  // The same without a copy: the view points into the transaction's map (raw
  // objects) or into `scratch` (compressed ones), valid while both live.
  Result<std::string_view> View(const ObjectId& id, ObjectType expected,
                                std::string* scratch) const;
  // Bytes [from, to) of the payload (fewer past its end), with only the part of
  // it that they need checked: the pages that hold them where the object has
  // page checksums, the whole payload otherwise. Valid as for View.
  Result<std::string_view> ViewRange(const ObjectId& id, ObjectType expected, uint64_t from,
                                     uint64_t to, std::string* scratch) const;
  Result<bool> Contains(const ObjectId& id) const;

  Result<Manifest> GetManifest(const ObjectId& id) const;
  Result<Tree> GetTree(const ObjectId& id) const;
  Result<Commit> GetCommit(const ObjectId& id) const;

 private:
  Txn* txn_;
  MDB_dbi dbi_;
};

// How much a read of an object proves.
enum class Verify {
  // The stored checksum (XXH3-64 seeded with the id) where the encoding has one,
  // else the SHA-256 id: catches damaged and misplaced bytes at memory speed.
  kChecksum,
  // Also recompute the SHA-256 id: proves the bytes are the object (fsck).
  kFullHash,
};

// Decodes a stored value into its type and payload and checks it against `id`.
// Used by ObjectTable::Get and by fsck, which must see every stored object.
Status VerifyStoredObject(const ObjectId& id, std::string_view stored, ObjectType* type,
                          std::string* payload, Verify depth = Verify::kChecksum);
// As VerifyStoredObject, with `payload` viewing `stored` or `scratch`.
Status VerifyStoredObjectView(const ObjectId& id, std::string_view stored, ObjectType* type,
                              std::string* scratch, std::string_view* payload,
                              Verify depth = Verify::kChecksum);
// As VerifyStoredObjectView for bytes [from, to) of the payload only: with page
// checksums only the pages holding them are checked (kFullHash checks all and
// returns the whole payload).
Status VerifyStoredRange(const ObjectId& id, std::string_view stored, ObjectType* type,
                         std::string* scratch, uint64_t from, uint64_t to,
                         std::string_view* payload, Verify depth);

}  // namespace vexfs::internal

#endif  // VEXFS_STORE_OBJECTS_H_
