// Mutable records of the working trees and refs, and the keys they live under.
// docs/format.md gives the byte grammar of each.
#ifndef VEXFS_STORE_RECORDS_H_
#define VEXFS_STORE_RECORDS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vexfs/status.h"
#include "vexfs/types.h"

namespace vexfs::internal {

struct InodeRecord {
  FileType type = FileType::kRegular;
  uint32_t mode = 0;
  uint32_t uid = 0;
  uint32_t gid = 0;
  uint64_t size = 0;
  uint32_t nlink = 0;
  TimeNs atime = 0;
  TimeNs mtime = 0;
  TimeNs ctime = 0;
  // Dirty tracking: `cached` is the object this inode was last snapshotted as
  // (tree, manifest or target chunk). It is valid only while `dirty` is false.
  // Invariant: every ancestor of a dirty inode is dirty, so marking stops at the
  // first dirty ancestor and a snapshot visits only dirty directories.
  bool dirty = true;
  std::optional<ObjectId> cached;
  // One entry per link: the directory holding it (directories: exactly one; the
  // root: none). Lets a write found by inode mark its ancestors dirty.
  std::vector<uint64_t> parents;
  std::string symlink_target;
  uint64_t rdev = 0;  // device number; stored only for character and block devices

  Attributes ToAttributes(uint64_t ino) const;
};

// The attributes an inode record, a snapshot's tree entry (objects.h) and the
// public Attributes (vexfs/types.h) have in common: type, permission bits,
// owner, mtime, size and device number. Every conversion between them copies
// these here, so a field added to all three cannot be dropped by one of them;
// each caller sets only what its target has beyond them.
template <typename From, typename To>
void CopySharedAttributes(const From& from, To* to) {
  to->type = from.type;
  to->mode = from.mode;
  to->uid = from.uid;
  to->gid = from.gid;
  to->mtime = from.mtime;
  to->size = from.size;
  to->rdev = from.rdev;
}

std::string EncodeInode(const InodeRecord& r);
Status DecodeInode(std::string_view v, InodeRecord* r);

struct BranchRecord {
  uint32_t id = 0;         // prefix of the branch's working-tree keys
  uint64_t next_ino = 2;   // never reused, so stale inode numbers never alias
  std::optional<ObjectId> head;
  TimeNs created = 0;
};

std::string EncodeBranch(const BranchRecord& r);
Status DecodeBranch(std::string_view v, BranchRecord* r);

struct DirentValue {
  uint64_t ino = 0;
  FileType type = FileType::kRegular;
};
std::string EncodeDirent(const DirentValue& d);
Status DecodeDirent(std::string_view v, DirentValue* d);

// Keys. Integers are big-endian so LMDB's byte order is numeric order and all keys
// of one branch (and of one directory) are contiguous.
std::string BranchPrefix(uint32_t branch);
std::string InodeKey(uint32_t branch, uint64_t ino);
std::string DirentPrefix(uint32_t branch, uint64_t parent);
std::string DirentKey(uint32_t branch, uint64_t parent, std::string_view name);
std::string ChunkPrefix(uint32_t branch, uint64_t ino);
std::string ChunkKey(uint32_t branch, uint64_t ino, uint64_t index);
std::string XattrPrefix(uint32_t branch, uint64_t ino);
std::string XattrKey(uint32_t branch, uint64_t ino, std::string_view name);

inline constexpr std::string_view kHeadRef = "HEAD";
std::string BranchRef(std::string_view name);    // "branch/<name>"
std::string SnapshotRef(std::string_view name);  // "snap/<name>"
inline constexpr std::string_view kBranchRefPrefix = "branch/";
inline constexpr std::string_view kSnapshotRefPrefix = "snap/";

// Names of extensions, their tables, feed subscriptions and commit roots: 1-64
// bytes of [a-z0-9_].
bool IsExtensionName(std::string_view name);

// Meta keys.
inline constexpr std::string_view kMetaFormat = "format";
inline constexpr std::string_view kMetaNextBranchId = "next_branch_id";
// Extension registrations (extension.h, change_feed.h): "table/<name>" -> scope
// byte, "ext/<name>" -> flags byte, "feed/<name>" -> be16 subscriber id.
inline constexpr std::string_view kMetaTablePrefix = "table/";
inline constexpr std::string_view kMetaExtensionPrefix = "ext/";
inline constexpr std::string_view kMetaFeedPrefix = "feed/";
inline constexpr std::string_view kMetaNextFeedId = "next_feed_id";
// Format 2 added the change feed and the extension registry; a format-1 store is
// upgraded in place when it is first opened for writing (docs/format.md).
inline constexpr std::string_view kFormatVersion = "2";
inline constexpr std::string_view kFormatVersion1 = "1";

}  // namespace vexfs::internal

#endif  // VEXFS_STORE_RECORDS_H_
