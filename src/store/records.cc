// Encoding of working-tree and ref records, and key construction.
#include "store/records.h"

#include <algorithm>

#include "common/coding.h"

namespace vexfs::internal {
namespace {
constexpr uint8_t kRecordV1 = 1;
constexpr uint8_t kFlagDirty = 1;
constexpr uint8_t kFlagCached = 2;
}  // namespace

Attributes InodeRecord::ToAttributes(uint64_t ino) const {
  Attributes a;
  a.ino = ino;
  CopySharedAttributes(*this, &a);
  a.nlink = nlink;
  a.atime = atime;
  a.ctime = ctime;
  return a;
}

std::string EncodeInode(const InodeRecord& r) {
  Encoder e;
  e.PutU8(kRecordV1);
  e.PutU8(static_cast<uint8_t>(r.type));
  e.PutVarint(r.mode);
  e.PutVarint(r.uid);
  e.PutVarint(r.gid);
  e.PutVarint(r.size);
  e.PutVarint(r.nlink);
  e.PutSignedVarint(r.atime);
  e.PutSignedVarint(r.mtime);
  e.PutSignedVarint(r.ctime);
  uint8_t flags = (r.dirty ? kFlagDirty : 0) | (r.cached ? kFlagCached : 0);
  e.PutU8(flags);
  if (r.cached) e.PutId(*r.cached);
  e.PutVarint(r.parents.size());
  for (uint64_t p : r.parents) e.PutVarint(p);
  e.PutBytes(r.symlink_target);
  if (IsDeviceFile(r.type)) e.PutVarint(r.rdev);
  return e.Take();
}

Status DecodeInode(std::string_view v, InodeRecord* r) {
  Decoder d(v);
  uint8_t version, type, flags;
  uint64_t nparents;
  bool ok = d.GetU8(&version) && version == kRecordV1 && d.GetU8(&type) &&
            IsFileTypeByte(type) && d.GetVarint32(&r->mode) && d.GetVarint32(&r->uid) &&
            d.GetVarint32(&r->gid) && d.GetVarint(&r->size) && d.GetVarint32(&r->nlink) &&
            d.GetSignedVarint(&r->atime) && d.GetSignedVarint(&r->mtime) &&
            d.GetSignedVarint(&r->ctime) && d.GetU8(&flags);
  if (!ok) return Status::Corruption("malformed inode record");
  r->type = static_cast<FileType>(type);
  r->dirty = flags & kFlagDirty;
  r->cached.reset();
  if (flags & kFlagCached) {
    ObjectId id;
    if (!d.GetId(&id)) return Status::Corruption("malformed inode record");
    r->cached = id;
  }
  if (!d.GetVarint(&nparents) || nparents > d.remaining()) {
    return Status::Corruption("malformed inode record");
  }
  r->parents.resize(nparents);
  for (auto& p : r->parents) {
    if (!d.GetVarint(&p)) return Status::Corruption("malformed inode record");
  }
  std::string_view target;
  if (!d.GetBytes(&target)) return Status::Corruption("malformed inode record");
  r->symlink_target = std::string(target);
  r->rdev = 0;
  if (IsDeviceFile(r->type) && !d.GetVarint(&r->rdev)) {
    return Status::Corruption("malformed inode record");
  }
  if (!d.done()) return Status::Corruption("malformed inode record");
  return Status::Ok();
}

std::string EncodeBranch(const BranchRecord& r) {
  Encoder e;
  e.PutU8(kRecordV1);
  e.PutVarint(r.id);
  e.PutVarint(r.next_ino);
  e.PutU8(r.head ? 1 : 0);
  if (r.head) e.PutId(*r.head);
  e.PutSignedVarint(r.created);
  return e.Take();
}

Status DecodeBranch(std::string_view v, BranchRecord* r) {
  Decoder d(v);
  uint8_t version, has_head;
  if (!d.GetU8(&version) || version != kRecordV1 || !d.GetVarint32(&r->id) ||
      !d.GetVarint(&r->next_ino) || !d.GetU8(&has_head)) {
    return Status::Corruption("malformed branch record");
  }
  r->head.reset();
  if (has_head) {
    ObjectId id;
    if (!d.GetId(&id)) return Status::Corruption("malformed branch record");
    r->head = id;
  }
  if (!d.GetSignedVarint(&r->created) || !d.done()) {
    return Status::Corruption("malformed branch record");
  }
  return Status::Ok();
}

std::string EncodeDirent(const DirentValue& dv) {
  Encoder e;
  e.PutVarint(dv.ino);
  e.PutU8(static_cast<uint8_t>(dv.type));
  return e.Take();
}

Status DecodeDirent(std::string_view v, DirentValue* dv) {
  Decoder d(v);
  uint8_t type;
  if (!d.GetVarint(&dv->ino) || !d.GetU8(&type) || !IsFileTypeByte(type) || !d.done()) {
    return Status::Corruption("malformed directory entry");
  }
  dv->type = static_cast<FileType>(type);
  return Status::Ok();
}

std::string BranchPrefix(uint32_t branch) {
  Encoder e;
  e.PutFixed32BE(branch);
  return e.Take();
}

std::string InodeKey(uint32_t branch, uint64_t ino) {
  Encoder e;
  e.PutFixed32BE(branch);
  e.PutFixed64BE(ino);
  return e.Take();
}

std::string DirentPrefix(uint32_t branch, uint64_t parent) { return InodeKey(branch, parent); }

std::string DirentKey(uint32_t branch, uint64_t parent, std::string_view name) {
  return InodeKey(branch, parent) + std::string(name);
}

std::string ChunkPrefix(uint32_t branch, uint64_t ino) { return InodeKey(branch, ino); }

std::string ChunkKey(uint32_t branch, uint64_t ino, uint64_t index) {
  Encoder e;
  e.PutRaw(InodeKey(branch, ino));
  e.PutFixed64BE(index);
  return e.Take();
}

std::string XattrPrefix(uint32_t branch, uint64_t ino) { return InodeKey(branch, ino); }

std::string XattrKey(uint32_t branch, uint64_t ino, std::string_view name) {
  return InodeKey(branch, ino) + std::string(name);
}

std::string BranchRef(std::string_view name) {
  return std::string(kBranchRefPrefix) + std::string(name);
}

std::string SnapshotRef(std::string_view name) {
  return std::string(kSnapshotRefPrefix) + std::string(name);
}

bool IsExtensionName(std::string_view name) {
  constexpr size_t kMaxBytes = 64;
  return !name.empty() && name.size() <= kMaxBytes &&
         std::all_of(name.begin(), name.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
         });
}

}  // namespace vexfs::internal
