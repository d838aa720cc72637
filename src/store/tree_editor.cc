// TreeEditor: the namespace operations of a working tree (create, link, unlink,
// rename, attributes, xattrs). File contents live in file_data.cc.
#include <algorithm>

#include "store/store_impl.h"
#include "vexfs/paths.h"

namespace vexfs {

using internal::DirentValue;
using internal::InodeRecord;

namespace {

constexpr size_t kMaxXattrValueSize = 64 * 1024;  // Linux's XATTR_SIZE_MAX

std::string Quoted(std::string_view name) { return "'" + std::string(name) + "'"; }

}  // namespace

Result<Attributes> TreeEditor::GetAttr(uint64_t ino) {
  VEXFS_ASSIGN_OR_RETURN(InodeRecord rec, scope_->LoadInode(ino));
  return rec.ToAttributes(ino);
}

Result<Attributes> TreeEditor::Lookup(uint64_t parent, std::string_view name) {
  VEXFS_RETURN_IF_ERROR(scope_->LoadDir(parent).status());
  VEXFS_ASSIGN_OR_RETURN(auto entry, scope_->FindEntry(parent, name));
  if (!entry) return Status::NotFound(Quoted(name) + " does not exist");
  return GetAttr(entry->ino);
}

Result<uint64_t> TreeEditor::ResolvePath(std::string_view path) {
  return scope_->Resolve(path);
}

Result<std::string> TreeEditor::PathOf(uint64_t ino) {
  std::string path;
  uint64_t cur = ino;
  for (int depth = 0; cur != kRootIno; ++depth) {
    if (depth > 100000) return Status::Corruption("parent chain does not reach the root");
    VEXFS_ASSIGN_OR_RETURN(InodeRecord rec, scope_->LoadInode(cur));
    if (rec.parents.empty()) {
      return Status::NotFound("inode " + std::to_string(ino) + " is unlinked");
    }
    uint64_t parent = rec.parents.front();
    // Entries hold child -> name only one way, so the parent is searched.
    VEXFS_ASSIGN_OR_RETURN(auto entries, scope_->ListEntries(parent));
    auto it = std::find_if(entries.begin(), entries.end(),
                           [&](const auto& e) { return e.second.ino == cur; });
    if (it == entries.end()) {
      return Status::Corruption("inode " + std::to_string(cur) + " is not in its parent");
    }
    path = path.empty() ? it->first : it->first + "/" + path;
    cur = parent;
  }
  return path;
}

Result<std::vector<DirEntry>> TreeEditor::ReadDir(uint64_t ino) {
  VEXFS_RETURN_IF_ERROR(scope_->LoadDir(ino).status());
  VEXFS_ASSIGN_OR_RETURN(auto entries, scope_->ListEntries(ino));
  std::vector<DirEntry> out;
  out.reserve(entries.size());
  for (auto& [name, dv] : entries) {
    VEXFS_ASSIGN_OR_RETURN(InodeRecord rec, scope_->LoadInode(dv.ino));
    out.push_back(DirEntry{name, rec.ToAttributes(dv.ino)});
  }
  return out;
}

Result<std::vector<TreeEditor::NameEntry>> TreeEditor::ListNames(uint64_t ino) {
  VEXFS_RETURN_IF_ERROR(scope_->LoadDir(ino).status());
  VEXFS_ASSIGN_OR_RETURN(auto entries, scope_->ListEntries(ino));
  std::vector<NameEntry> out;
  out.reserve(entries.size());
  for (auto& [name, dv] : entries) out.push_back(NameEntry{std::move(name), dv.ino, dv.type});
  return out;
}

// Updates a directory after its entries changed: times, link count, dirtiness.
static Status TouchDir(internal::TxnScope* scope, uint64_t dir, int nlink_delta) {
  VEXFS_ASSIGN_OR_RETURN(InodeRecord rec, scope->LoadInode(dir));
  rec.mtime = rec.ctime = NowNs();
  rec.nlink = static_cast<uint32_t>(static_cast<int64_t>(rec.nlink) + nlink_delta);
  VEXFS_RETURN_IF_ERROR(scope->SaveInode(dir, rec));
  return scope->MarkDirty(dir);
}

static Result<Attributes> CreateNode(internal::TxnScope* scope, uint64_t parent,
                                     std::string_view name, FileType type,
                                     const TreeEditor::NewNode& node,
                                     std::string_view target, uint64_t rdev = 0) {
  VEXFS_RETURN_IF_ERROR(ValidateNewEntryName(parent, name));
  VEXFS_RETURN_IF_ERROR(scope->LoadDir(parent).status());
  VEXFS_ASSIGN_OR_RETURN(auto existing, scope->FindEntry(parent, name));
  if (existing) return Status::AlreadyExists(Quoted(name) + " already exists");
  InodeRecord rec;
  rec.type = type;
  rec.mode = node.mode & 07777;
  rec.uid = node.uid;
  rec.gid = node.gid;
  rec.size = target.size();
  rec.nlink = type == FileType::kDirectory ? 2 : 1;
  rec.atime = rec.mtime = rec.ctime = NowNs();
  rec.parents = {parent};
  rec.symlink_target = std::string(target);
  rec.rdev = IsDeviceFile(type) ? rdev : 0;
  uint64_t ino = scope->AllocateIno();
  VEXFS_RETURN_IF_ERROR(scope->SaveInode(ino, rec));
  VEXFS_RETURN_IF_ERROR(scope->PutEntry(parent, name, DirentValue{ino, type}));
  VEXFS_RETURN_IF_ERROR(TouchDir(scope, parent, type == FileType::kDirectory ? 1 : 0));
  return rec.ToAttributes(ino);
}

Result<Attributes> TreeEditor::Mkdir(uint64_t parent, std::string_view name,
                                     const NewNode& node) {
  return CreateNode(scope_, parent, name, FileType::kDirectory, node, "");
}

Result<Attributes> TreeEditor::CreateFile(uint64_t parent, std::string_view name,
                                          const NewNode& node) {
  return CreateNode(scope_, parent, name, FileType::kRegular, node, "");
}

Result<Attributes> TreeEditor::Symlink(uint64_t parent, std::string_view name,
                                       std::string_view target, const NewNode& node) {
  if (target.empty()) return Status::InvalidArgument("symlink target is empty");
  if (target.size() > 4096) return Status::NameTooLong("symlink target is over 4096 bytes");
  NewNode link = node;
  link.mode = 0777;
  return CreateNode(scope_, parent, name, FileType::kSymlink, link, target);
}

Result<Attributes> TreeEditor::MakeSpecialFile(uint64_t parent, std::string_view name,
                                               FileType type, uint64_t rdev,
                                               const NewNode& node) {
  if (!IsSpecialFile(type)) {
    return Status::InvalidArgument(std::string("a ") + FileTypeName(type) +
                                   " is not a special file");
  }
  return CreateNode(scope_, parent, name, type, node, "", rdev);
}

Result<std::string> TreeEditor::ReadLink(uint64_t ino) {
  VEXFS_ASSIGN_OR_RETURN(InodeRecord rec, scope_->LoadInode(ino));
  if (rec.type != FileType::kSymlink) {
    return Status::InvalidArgument("inode " + std::to_string(ino) + " is not a symlink");
  }
  return rec.symlink_target;
}

Result<Attributes> TreeEditor::Link(uint64_t ino, uint64_t new_parent,
                                    std::string_view new_name) {
  VEXFS_RETURN_IF_ERROR(ValidateNewEntryName(new_parent, new_name));
  VEXFS_ASSIGN_OR_RETURN(InodeRecord rec, scope_->LoadInode(ino));
  if (rec.type == FileType::kDirectory) {
    return Status::NotSupported("hard links to directories are not allowed");
  }
  // POSIX: a file whose last link is gone cannot be linked again.
  if (rec.nlink == 0) {
    return Status::NotFound("inode " + std::to_string(ino) + " was removed");
  }
  VEXFS_RETURN_IF_ERROR(scope_->LoadDir(new_parent).status());
  VEXFS_ASSIGN_OR_RETURN(auto existing, scope_->FindEntry(new_parent, new_name));
  if (existing) return Status::AlreadyExists(Quoted(new_name) + " already exists");
  rec.nlink++;
  rec.parents.push_back(new_parent);
  rec.ctime = NowNs();
  VEXFS_RETURN_IF_ERROR(scope_->SaveInode(ino, rec));
  VEXFS_RETURN_IF_ERROR(scope_->PutEntry(new_parent, new_name, DirentValue{ino, rec.type}));
  VEXFS_RETURN_IF_ERROR(TouchDir(scope_, new_parent, 0));
  return rec.ToAttributes(ino);
}

// Drops one link of `ino` held by `parent`; the inode goes with its last link
// unless `last_link` keeps it as an orphan.
static Status DropLink(internal::TxnScope* scope, uint64_t ino, uint64_t parent,
                       TreeEditor::LastLink last_link) {
  VEXFS_ASSIGN_OR_RETURN(InodeRecord rec, scope->LoadInode(ino));
  auto it = std::find(rec.parents.begin(), rec.parents.end(), parent);
  if (it != rec.parents.end()) rec.parents.erase(it);
  bool last = rec.type == FileType::kDirectory || rec.nlink <= 1;
  if (last && (rec.type == FileType::kDirectory ||
               last_link == TreeEditor::LastLink::kDelete)) {
    return scope->DeleteInode(ino);
  }
  rec.nlink = last ? 0 : rec.nlink - 1;
  rec.ctime = NowNs();
  VEXFS_RETURN_IF_ERROR(scope->SaveInode(ino, rec));
  return last ? scope->MakeOrphan(ino) : Status::Ok();
}

Status TreeEditor::ReleaseOrphan(uint64_t ino) {
  VEXFS_ASSIGN_OR_RETURN(bool orphan, scope_->IsOrphan(ino));
  return orphan ? scope_->DeleteInode(ino) : Status::Ok();
}

Result<uint64_t> TreeEditor::PurgeOrphans() {
  VEXFS_ASSIGN_OR_RETURN(std::vector<uint64_t> orphans, scope_->ListOrphans());
  for (uint64_t ino : orphans) VEXFS_RETURN_IF_ERROR(scope_->DeleteInode(ino));
  return static_cast<uint64_t>(orphans.size());
}

Status TreeEditor::Unlink(uint64_t parent, std::string_view name, LastLink last_link) {
  VEXFS_RETURN_IF_ERROR(scope_->LoadDir(parent).status());
  VEXFS_ASSIGN_OR_RETURN(auto entry, scope_->FindEntry(parent, name));
  if (!entry) return Status::NotFound(Quoted(name) + " does not exist");
  if (entry->type == FileType::kDirectory) {
    return Status::IsDirectory(Quoted(name) + " is a directory");
  }
  VEXFS_RETURN_IF_ERROR(scope_->DeleteEntry(parent, name));
  VEXFS_RETURN_IF_ERROR(DropLink(scope_, entry->ino, parent, last_link));
  return TouchDir(scope_, parent, 0);
}

Status TreeEditor::Rmdir(uint64_t parent, std::string_view name) {
  VEXFS_RETURN_IF_ERROR(scope_->LoadDir(parent).status());
  VEXFS_ASSIGN_OR_RETURN(auto entry, scope_->FindEntry(parent, name));
  if (!entry) return Status::NotFound(Quoted(name) + " does not exist");
  if (entry->type != FileType::kDirectory) {
    return Status::NotDirectory(Quoted(name) + " is not a directory");
  }
  VEXFS_ASSIGN_OR_RETURN(bool empty, scope_->DirIsEmpty(entry->ino));
  if (!empty) return Status::NotEmpty("directory " + Quoted(name) + " is not empty");
  VEXFS_RETURN_IF_ERROR(scope_->DeleteEntry(parent, name));
  VEXFS_RETURN_IF_ERROR(scope_->DeleteInode(entry->ino));
  return TouchDir(scope_, parent, -1);
}

// True if `dir` is `ancestor` or lies below it.
static Result<bool> IsWithin(internal::TxnScope* scope, uint64_t dir, uint64_t ancestor) {
  uint64_t cur = dir;
  for (int depth = 0; depth < 100000; ++depth) {
    if (cur == ancestor) return true;
    if (cur == kRootIno) return false;
    VEXFS_ASSIGN_OR_RETURN(InodeRecord rec, scope->LoadInode(cur));
    if (rec.parents.empty()) return false;
    cur = rec.parents.front();
  }
  return Status::Corruption("directory parent chain does not reach the root");
}

// Removes what a rename would replace at (parent, name), if allowed.
static Status ClearRenameTarget(internal::TxnScope* scope, const DirentValue& src,
                                uint64_t parent, std::string_view name,
                                const DirentValue& dst, TreeEditor::LastLink last_link) {
  bool src_dir = src.type == FileType::kDirectory;
  bool dst_dir = dst.type == FileType::kDirectory;
  if (dst_dir && !src_dir) return Status::IsDirectory(Quoted(name) + " is a directory");
  if (!dst_dir && src_dir) return Status::NotDirectory(Quoted(name) + " is not a directory");
  if (dst_dir) {
    VEXFS_ASSIGN_OR_RETURN(bool empty, scope->DirIsEmpty(dst.ino));
    if (!empty) return Status::NotEmpty("directory " + Quoted(name) + " is not empty");
  }
  VEXFS_RETURN_IF_ERROR(scope->DeleteEntry(parent, name));
  VEXFS_RETURN_IF_ERROR(DropLink(scope, dst.ino, parent, last_link));
  return dst_dir ? TouchDir(scope, parent, -1) : Status::Ok();
}

// Re-points one link of `ino` from directory `from` to `to`; stamps its ctime.
static Status MoveLink(internal::TxnScope* scope, uint64_t ino, uint64_t from, uint64_t to) {
  VEXFS_ASSIGN_OR_RETURN(InodeRecord rec, scope->LoadInode(ino));
  auto it = std::find(rec.parents.begin(), rec.parents.end(), from);
  if (it != rec.parents.end()) *it = to;
  rec.ctime = NowNs();
  return scope->SaveInode(ino, rec);
}

// kInvalidArgument if the directory entry `moved` would end up inside itself.
static Status RefuseMoveIntoItself(internal::TxnScope* scope, const DirentValue& moved,
                                   std::string_view name, uint64_t new_parent) {
  if (moved.type != FileType::kDirectory) return Status::Ok();
  VEXFS_ASSIGN_OR_RETURN(bool inside, IsWithin(scope, new_parent, moved.ino));
  if (inside) {
    return Status::InvalidArgument("cannot move directory " + Quoted(name) + " into itself");
  }
  return Status::Ok();
}

Status TreeEditor::Exchange(uint64_t parent, std::string_view name, uint64_t new_parent,
                            std::string_view new_name) {
  // Both names exist already: an exchange makes no new name to reserve against.
  VEXFS_RETURN_IF_ERROR(ValidateFileName(name));
  VEXFS_RETURN_IF_ERROR(ValidateFileName(new_name));
  VEXFS_RETURN_IF_ERROR(scope_->LoadDir(parent).status());
  VEXFS_RETURN_IF_ERROR(scope_->LoadDir(new_parent).status());
  VEXFS_ASSIGN_OR_RETURN(auto a, scope_->FindEntry(parent, name));
  if (!a) return Status::NotFound(Quoted(name) + " does not exist");
  VEXFS_ASSIGN_OR_RETURN(auto b, scope_->FindEntry(new_parent, new_name));
  if (!b) return Status::NotFound(Quoted(new_name) + " does not exist");
  if (a->ino == b->ino) return Status::Ok();  // one entry, or two links of one file
  VEXFS_RETURN_IF_ERROR(RefuseMoveIntoItself(scope_, *a, name, new_parent));
  VEXFS_RETURN_IF_ERROR(RefuseMoveIntoItself(scope_, *b, new_name, parent));
  VEXFS_RETURN_IF_ERROR(scope_->PutEntry(parent, name, *b));
  VEXFS_RETURN_IF_ERROR(scope_->PutEntry(new_parent, new_name, *a));
  VEXFS_RETURN_IF_ERROR(MoveLink(scope_, a->ino, parent, new_parent));
  VEXFS_RETURN_IF_ERROR(MoveLink(scope_, b->ino, new_parent, parent));
  // Each directory's link count follows the subdirectories it gains or loses.
  int gained = (a->type == FileType::kDirectory) - (b->type == FileType::kDirectory);
  if (parent == new_parent) return TouchDir(scope_, parent, 0);
  VEXFS_RETURN_IF_ERROR(TouchDir(scope_, parent, -gained));
  return TouchDir(scope_, new_parent, gained);
}

Status TreeEditor::Rename(uint64_t parent, std::string_view name, uint64_t new_parent,
                          std::string_view new_name, unsigned flags,
                          LastLink replaced_last_link) {
  VEXFS_RETURN_IF_ERROR(ValidateNewEntryName(new_parent, new_name));
  VEXFS_RETURN_IF_ERROR(scope_->LoadDir(parent).status());
  VEXFS_RETURN_IF_ERROR(scope_->LoadDir(new_parent).status());
  VEXFS_ASSIGN_OR_RETURN(auto src, scope_->FindEntry(parent, name));
  if (!src) return Status::NotFound(Quoted(name) + " does not exist");
  if (parent == new_parent && name == new_name) return Status::Ok();
  bool is_dir = src->type == FileType::kDirectory;
  VEXFS_RETURN_IF_ERROR(RefuseMoveIntoItself(scope_, *src, name, new_parent));
  VEXFS_ASSIGN_OR_RETURN(auto dst, scope_->FindEntry(new_parent, new_name));
  if (dst) {
    if (flags & kRenameNoReplace) {
      return Status::AlreadyExists(Quoted(new_name) + " already exists");
    }
    if (dst->ino == src->ino) return Status::Ok();  // two links of one file: POSIX no-op
    VEXFS_RETURN_IF_ERROR(ClearRenameTarget(scope_, *src, new_parent, new_name, *dst,
                                              replaced_last_link));
  }
  VEXFS_RETURN_IF_ERROR(scope_->DeleteEntry(parent, name));
  VEXFS_RETURN_IF_ERROR(scope_->PutEntry(new_parent, new_name, *src));
  VEXFS_RETURN_IF_ERROR(MoveLink(scope_, src->ino, parent, new_parent));
  int moved_dir = is_dir && parent != new_parent ? 1 : 0;
  VEXFS_RETURN_IF_ERROR(TouchDir(scope_, parent, -moved_dir));
  return TouchDir(scope_, new_parent, moved_dir);
}

Result<Attributes> TreeEditor::SetAttr(uint64_t ino, const AttrChange& change) {
  VEXFS_ASSIGN_OR_RETURN(InodeRecord rec, scope_->LoadInode(ino));
  if (change.mode) rec.mode = *change.mode & 07777;
  if (change.uid) rec.uid = *change.uid;
  if (change.gid) rec.gid = *change.gid;
  if (change.atime) rec.atime = *change.atime;
  if (change.mtime) rec.mtime = *change.mtime;
  rec.ctime = NowNs();
  VEXFS_RETURN_IF_ERROR(scope_->SaveInode(ino, rec));
  // atime is not part of a snapshot; everything else is.
  bool snapshotted = change.mode || change.uid || change.gid || change.mtime;
  if (snapshotted) VEXFS_RETURN_IF_ERROR(scope_->MarkDirty(ino));
  return rec.ToAttributes(ino);
}

static Status ValidateXattrName(std::string_view name) {
  if (name.empty()) return Status::InvalidArgument("xattr name is empty");
  if (name.size() > kMaxNameLength) {
    return Status::NameTooLong("xattr name is longer than 255 bytes");
  }
  if (name.find('\0') != std::string_view::npos) {
    return Status::InvalidArgument("xattr name contains a NUL byte");
  }
  return Status::Ok();
}

Result<std::string> TreeEditor::GetXattr(uint64_t ino, std::string_view name) {
  VEXFS_RETURN_IF_ERROR(ValidateXattrName(name));
  VEXFS_RETURN_IF_ERROR(scope_->LoadInode(ino).status());
  VEXFS_ASSIGN_OR_RETURN(
      auto raw, scope_->txn().Get(scope_->dbs().xattrs,
                                  internal::XattrKey(scope_->branch_id(), ino, name)));
  if (!raw) return Status::NotFound("xattr " + Quoted(name) + " not set");
  return std::string(*raw);
}

Result<XattrMap> TreeEditor::ListXattrs(uint64_t ino) {
  VEXFS_RETURN_IF_ERROR(scope_->LoadInode(ino).status());
  return scope_->LoadXattrs(ino);
}

Status TreeEditor::SetXattr(uint64_t ino, std::string_view name, std::string_view value) {
  VEXFS_RETURN_IF_ERROR(ValidateXattrName(name));
  if (value.size() > kMaxXattrValueSize) {
    return Status::FileTooLarge("xattr " + Quoted(name) + " value is over 64 KiB");
  }
  VEXFS_ASSIGN_OR_RETURN(InodeRecord rec, scope_->LoadInode(ino));
  VEXFS_RETURN_IF_ERROR(scope_->txn().Put(
      scope_->dbs().xattrs, internal::XattrKey(scope_->branch_id(), ino, name), value));
  rec.ctime = NowNs();
  VEXFS_RETURN_IF_ERROR(scope_->SaveInode(ino, rec));
  return scope_->MarkDirty(ino);
}

Status TreeEditor::RemoveXattr(uint64_t ino, std::string_view name) {
  VEXFS_RETURN_IF_ERROR(ValidateXattrName(name));
  VEXFS_ASSIGN_OR_RETURN(InodeRecord rec, scope_->LoadInode(ino));
  VEXFS_ASSIGN_OR_RETURN(
      bool deleted, scope_->txn().Delete(scope_->dbs().xattrs,
                                         internal::XattrKey(scope_->branch_id(), ino, name)));
  if (!deleted) return Status::NotFound("xattr " + Quoted(name) + " not set");
  rec.ctime = NowNs();
  VEXFS_RETURN_IF_ERROR(scope_->SaveInode(ino, rec));
  return scope_->MarkDirty(ino);
}

Result<uint64_t> TreeEditor::MakeDirs(std::string_view path, const NewNode& node) {
  VEXFS_ASSIGN_OR_RETURN(auto parts, SplitStorePath(path));
  uint64_t ino = kRootIno;
  for (const std::string& part : parts) {
    VEXFS_ASSIGN_OR_RETURN(auto entry, scope_->FindEntry(ino, part));
    if (entry && entry->type != FileType::kDirectory) {
      return Status::NotDirectory(Quoted(part) + " in '" + std::string(path) +
                                  "' is not a directory");
    }
    if (entry) {
      ino = entry->ino;
      continue;
    }
    NewNode dir = node;
    dir.mode = 0755;
    VEXFS_ASSIGN_OR_RETURN(Attributes made, Mkdir(ino, part, dir));
    ino = made.ino;
  }
  return ino;
}

Result<Attributes> TreeEditor::PutFile(std::string_view path, std::string_view data,
                                       const NewNode& node) {
  VEXFS_ASSIGN_OR_RETURN(auto parts, SplitStorePath(path));
  if (parts.empty()) return Status::IsDirectory("the store root is a directory");
  std::string dir;
  for (size_t i = 0; i + 1 < parts.size(); ++i) dir += parts[i] + "/";
  VEXFS_ASSIGN_OR_RETURN(uint64_t parent, MakeDirs(dir, node));
  VEXFS_ASSIGN_OR_RETURN(auto entry, scope_->FindEntry(parent, parts.back()));
  uint64_t ino;
  if (!entry) {
    VEXFS_ASSIGN_OR_RETURN(Attributes made, CreateFile(parent, parts.back(), node));
    ino = made.ino;
  } else if (entry->type == FileType::kRegular) {
    ino = entry->ino;
  } else {
    return Status::IsDirectory("'" + std::string(path) + "' exists and is not a file");
  }
  VEXFS_RETURN_IF_ERROR(ReplaceContent(ino, data));
  return GetAttr(ino);
}

}  // namespace vexfs
