// Filesystem: names, attributes and namespace changes (files: file_io.cc;
// directories: dir_handles.cc; xattrs: xattrs.cc; statfs: space.cc).
#include "fuse/filesystem.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <optional>
#include <sys/stat.h>

#include "fuse/kill_privs.h"
#include "fuse/virtual_tree.h"
#include "vexfs/paths.h"

namespace vexfs::fuse {

inline constexpr std::string_view kVirtualRootName = kReservedRootName;

Result<std::unique_ptr<Filesystem>> Filesystem::Create(Store* store, Index* index,
                                                       const FilesystemOptions& options) {
  VEXFS_ASSIGN_OR_RETURN(auto tree, store->Tree(options.branch));
  std::unique_ptr<Filesystem> fs(new Filesystem(store, index, options, std::move(tree)));
  if (!options.read_only) {
    // No process can hold a file open across a restart of the mount.
    VEXFS_RETURN_IF_ERROR(fs->Edit([](TreeEditor& ed) { return ed.PurgeOrphans().status(); }));
  }
  return fs;
}

Filesystem::Filesystem(Store* store, Index* index, const FilesystemOptions& options,
                       std::unique_ptr<WorkingTree> tree)
    : store_(store),
      index_(index),
      options_(options),
      branch_(tree->branch()),
      tree_(std::move(tree)),
      virtual_tree_(std::make_unique<VirtualTree>(store, index, options.graph, tree_->branch())),
      open_files_(&buffer_context_) {
  buffer_context_.file_buffer_limit = options_.file_buffer_limit;
  buffer_context_.total_buffer_limit = options_.total_buffer_limit;
  buffer_context_.write_behind = options_.write_behind;
  buffer_context_.writer = &write_behind_;
  buffer_context_.apply = [this](uint64_t ino, const WriteBuffer& buffer) {
    return Edit([&](TreeEditor& ed) { return buffer.ApplyTo(ed, ino); });
  };
}

Filesystem::~Filesystem() = default;

Status Filesystem::Edit(const std::function<Status(TreeEditor&)>& edit) {
  if (options_.read_only) return Status::ReadOnly("the mount is read-only");
  Status st = tree_->Edit(edit);
  // The change queued indexing work; the Db's background indexer sees the
  // commit itself, which is what makes a closed file searchable within
  // milliseconds.
  if (st.ok()) unsynced_ = true;
  return st;
}

Status Filesystem::View(const std::function<Status(TreeEditor&)>& read) {
  return tree_->View(read);
}

Status Filesystem::RefuseIfReadOnly(uint64_t ino) const {
  if (IsVirtualIno(ino)) return Status::ReadOnly(".vexfs/ is read-only");
  if (options_.read_only) return Status::ReadOnly("the mount is read-only");
  return Status::Ok();
}

Result<Attributes> Filesystem::StoreAttr(uint64_t ino) {
  Attributes attr;
  VEXFS_RETURN_IF_ERROR(View([&](TreeEditor& ed) -> Status {
    VEXFS_ASSIGN_OR_RETURN(attr, ed.GetAttr(ino));
    return Status::Ok();
  }));
  return attr;
}

Result<Attributes> Filesystem::CurrentAttr(uint64_t ino) {
  auto inode = open_files_.Find(ino);
  if (!inode) return StoreAttr(ino);
  // Read the store under the buffer's lock: a flush in between would otherwise
  // leave us with the store's old size and no buffer to correct it.
  OpenInode::Guard guard = inode->Lock();
  VEXFS_ASSIGN_OR_RETURN(Attributes attr, StoreAttr(ino));
  if (guard.buffered()) {
    attr.size = guard.SizeOver(attr.size);
    attr.mtime = std::max(attr.mtime, guard.buffered_mtime());
    attr.ctime = std::max(attr.ctime, attr.mtime);
  }
  return attr;
}

Result<Attributes> Filesystem::WithBuffer(const Attributes& attr) {
  return open_files_.IsOpen(attr.ino) ? CurrentAttr(attr.ino) : attr;
}

Result<Attributes> Filesystem::Lookup(uint64_t parent, std::string_view name) {
  if (IsVirtualIno(parent)) return virtual_tree_->Lookup(parent, name);
  if (parent == kRootIno && name == kVirtualRootName) return virtual_tree_->Root();
  if (name == "." || name == "..") return LookupForHandle(parent, name);
  Attributes attr;
  VEXFS_RETURN_IF_ERROR(View([&](TreeEditor& ed) -> Status {
    VEXFS_ASSIGN_OR_RETURN(attr, ed.Lookup(parent, name));
    return Status::Ok();
  }));
  return WithBuffer(attr);
}

// The kernel asks for "." only to open a file handle (open_by_handle_at, an NFS
// export) whose inode it no longer caches, and for ".." to reconnect such a
// directory to its parent; the VFS resolves both itself otherwise. A handle of
// an inode that is gone (deleted, or renumbered by a restore) gets ENOENT, which
// the kernel reports as ESTALE.
Result<Attributes> Filesystem::LookupForHandle(uint64_t ino, std::string_view name) {
  if (name == ".") return CurrentAttr(ino);
  uint64_t parent = kRootIno;
  VEXFS_RETURN_IF_ERROR(View([&](TreeEditor& ed) -> Status {
    VEXFS_ASSIGN_OR_RETURN(std::string path, ed.PathOf(ino));
    size_t slash = path.rfind('/');
    if (slash == std::string::npos) return Status::Ok();  // in the root (or the root)
    VEXFS_ASSIGN_OR_RETURN(parent, ed.ResolvePath(path.substr(0, slash)));
    return Status::Ok();
  }));
  return CurrentAttr(parent);
}

void Filesystem::Forget(uint64_t ino, uint64_t count) {
  if (IsVirtualIno(ino)) virtual_tree_->Forget(ino, count);
}

Result<Attributes> Filesystem::GetAttr(uint64_t ino) {
  if (IsVirtualIno(ino)) return virtual_tree_->GetAttr(ino);
  auto attr = CurrentAttr(ino);
  if (attr.ok() || attr.status().code() != StatusCode::kNotFound) return attr;
  // rmdir, or a rename over it, removed a directory that is still open: fstat
  // on its descriptor sees it with no links, as POSIX asks (files are kept as
  // orphans instead, so they never get here).
  if (std::optional<Attributes> removed = RemovedOpenDir(ino)) return *removed;
  return attr;
}

Result<Attributes> Filesystem::SetAttr(uint64_t ino, const SetAttrRequest& request) {
  VEXFS_RETURN_IF_ERROR(RefuseIfReadOnly(ino));
  // Buffered writes go first, so a truncate or an explicit mtime wins over them.
  VEXFS_ASSIGN_OR_RETURN(auto hold, FlushAndHold(ino));
  Attributes attr;
  bool cleared = false;  // setuid or setgid, by a truncate of someone else's file
  VEXFS_RETURN_IF_ERROR(Edit([&](TreeEditor& ed) -> Status {
    TreeEditor::AttrChange change{request.mode, request.uid, request.gid, request.atime,
                                  request.mtime};
    if (request.size) {
      VEXFS_RETURN_IF_ERROR(ed.Truncate(ino, *request.size));
      // The kernel may send a mode with the size, cleared by an older rule
      // (setgid only with group-execute): the rule applies to that mode too.
      VEXFS_ASSIGN_OR_RETURN(Attributes truncated, ed.GetAttr(ino));
      uint32_t current = truncated.mode;
      if (change.mode) truncated.mode = *change.mode;
      uint32_t kept = ModeAfterChangeBy(truncated, request.caller);
      cleared = kept != current;
      if (kept != truncated.mode || change.mode) change.mode = kept;
    }
    bool any = change.mode || change.uid || change.gid || change.atime || change.mtime;
    if (any) {
      VEXFS_ASSIGN_OR_RETURN(attr, ed.SetAttr(ino, change));
    } else {
      VEXFS_ASSIGN_OR_RETURN(attr, ed.GetAttr(ino));
    }
    return Status::Ok();
  }));
  // An O_TRUNC open replies without attributes.
  if (cleared && on_mode_cleared_) on_mode_cleared_(ino);
  // A mode set here may carry the bits again: the next write checks.
  if (request.mode) {
    if (auto inode = open_files_.Find(ino)) inode->set_privs_clear(false);
  }
  return attr;
}

Result<std::string> Filesystem::ReadLink(uint64_t ino) {
  if (IsVirtualIno(ino)) return virtual_tree_->ReadLink(ino);
  std::string target;
  VEXFS_RETURN_IF_ERROR(View([&](TreeEditor& ed) -> Status {
    VEXFS_ASSIGN_OR_RETURN(target, ed.ReadLink(ino));
    return Status::Ok();
  }));
  return target;
}

// The virtual tree's name at the root cannot be taken by a real file. The
// store refuses it too (kInvalidArgument); in a mount the views are there, so
// the name exists, and EEXIST is what a caller of open(O_EXCL) or mkdir expects.
static Status RefuseReservedName(uint64_t parent, std::string_view name) {
  if (parent == kRootIno && name == kVirtualRootName) {
    return Status::AlreadyExists("'.vexfs' is reserved for the search and snapshot views");
  }
  return Status::Ok();
}

// Owner and mode of a new node in `parent`: the caller's, except that a setgid
// directory hands down its group, and to subdirectories its setgid bit too (as
// every Unix file system does: shared project directories rely on it).
static Result<TreeEditor::NewNode> NewNodeIn(TreeEditor& ed, uint64_t parent, uint32_t mode,
                                             const Caller& caller, bool directory) {
  VEXFS_ASSIGN_OR_RETURN(Attributes dir, ed.GetAttr(parent));
  TreeEditor::NewNode node{mode & 07777, caller.uid, caller.gid};
  if (dir.mode & S_ISGID) {
    node.gid = dir.gid;
    if (directory) node.mode |= S_ISGID;
  }
  return node;
}

// The store's type for the type bits of a mknod() mode; nothing for a directory
// or symlink, which have calls of their own.
static std::optional<FileType> NodeTypeOf(uint32_t mode) {
  switch (mode & S_IFMT) {
    case 0:  // mknod(2): a zero type means a regular file
    case S_IFREG: return FileType::kRegular;
    case S_IFIFO: return FileType::kFifo;
    case S_IFSOCK: return FileType::kSocket;
    case S_IFCHR: return FileType::kCharDevice;
    case S_IFBLK: return FileType::kBlockDevice;
  }
  return std::nullopt;
}

Result<Attributes> Filesystem::Mknod(uint64_t parent, std::string_view name, uint32_t mode,
                                     uint64_t rdev, const Caller& caller) {
  VEXFS_RETURN_IF_ERROR(RefuseIfReadOnly(parent));
  VEXFS_RETURN_IF_ERROR(RefuseReservedName(parent, name));
  std::optional<FileType> type = NodeTypeOf(mode);
  if (!type) return Status::InvalidArgument("mknod of an unknown file type");
  Attributes attr;
  VEXFS_RETURN_IF_ERROR(Edit([&](TreeEditor& ed) -> Status {
    VEXFS_ASSIGN_OR_RETURN(auto node, NewNodeIn(ed, parent, mode, caller, false));
    if (*type == FileType::kRegular) {
      VEXFS_ASSIGN_OR_RETURN(attr, ed.CreateFile(parent, name, node));
    } else {
      VEXFS_ASSIGN_OR_RETURN(attr, ed.MakeSpecialFile(parent, name, *type, rdev, node));
    }
    return Status::Ok();
  }));
  return attr;
}

Result<Attributes> Filesystem::Mkdir(uint64_t parent, std::string_view name, uint32_t mode,
                                     const Caller& caller) {
  VEXFS_RETURN_IF_ERROR(RefuseIfReadOnly(parent));
  VEXFS_RETURN_IF_ERROR(RefuseReservedName(parent, name));
  Attributes attr;
  VEXFS_RETURN_IF_ERROR(Edit([&](TreeEditor& ed) -> Status {
    VEXFS_ASSIGN_OR_RETURN(auto node, NewNodeIn(ed, parent, mode, caller, true));
    VEXFS_ASSIGN_OR_RETURN(attr, ed.Mkdir(parent, name, node));
    return Status::Ok();
  }));
  return attr;
}

Result<Attributes> Filesystem::Symlink(uint64_t parent, std::string_view name,
                                       std::string_view target, const Caller& caller) {
  VEXFS_RETURN_IF_ERROR(RefuseIfReadOnly(parent));
  VEXFS_RETURN_IF_ERROR(RefuseReservedName(parent, name));
  Attributes attr;
  VEXFS_RETURN_IF_ERROR(Edit([&](TreeEditor& ed) -> Status {
    VEXFS_ASSIGN_OR_RETURN(auto node, NewNodeIn(ed, parent, 0777, caller, false));
    VEXFS_ASSIGN_OR_RETURN(attr, ed.Symlink(parent, name, target, node));
    return Status::Ok();
  }));
  return attr;
}

Result<Attributes> Filesystem::Link(uint64_t ino, uint64_t new_parent, std::string_view new_name) {
  VEXFS_RETURN_IF_ERROR(RefuseIfReadOnly(ino));
  VEXFS_RETURN_IF_ERROR(RefuseIfReadOnly(new_parent));
  VEXFS_RETURN_IF_ERROR(RefuseReservedName(new_parent, new_name));
  Attributes attr;
  VEXFS_RETURN_IF_ERROR(Edit([&](TreeEditor& ed) -> Status {
    VEXFS_ASSIGN_OR_RETURN(attr, ed.Link(ino, new_parent, new_name));
    return Status::Ok();
  }));
  return WithBuffer(attr);
}

TreeEditor::LastLink Filesystem::LastLinkFor(uint64_t ino) const {
  return open_files_.IsOpen(ino) ? TreeEditor::LastLink::kKeepOrphan
                                 : TreeEditor::LastLink::kDelete;
}

Status Filesystem::Unlink(uint64_t parent, std::string_view name) {
  VEXFS_RETURN_IF_ERROR(RefuseIfReadOnly(parent));
  std::unique_lock lock(namespace_mu_);
  return Edit([&](TreeEditor& ed) -> Status {
    VEXFS_ASSIGN_OR_RETURN(Attributes victim, ed.Lookup(parent, name));
    return ed.Unlink(parent, name, LastLinkFor(victim.ino));
  });
}

Status Filesystem::Rmdir(uint64_t parent, std::string_view name) {
  VEXFS_RETURN_IF_ERROR(RefuseIfReadOnly(parent));
  return Edit([&](TreeEditor& ed) { return ed.Rmdir(parent, name); });
}

Status Filesystem::Rename(uint64_t parent, std::string_view name, uint64_t new_parent,
                          std::string_view new_name, unsigned flags) {
  VEXFS_RETURN_IF_ERROR(RefuseIfReadOnly(parent));
  VEXFS_RETURN_IF_ERROR(RefuseIfReadOnly(new_parent));
  VEXFS_RETURN_IF_ERROR(RefuseReservedName(new_parent, new_name));
  if (flags == RENAME_EXCHANGE) {
    std::unique_lock lock(namespace_mu_);
    return Edit([&](TreeEditor& ed) { return ed.Exchange(parent, name, new_parent, new_name); });
  }
  // RENAME_EXCHANGE with RENAME_NOREPLACE, RENAME_WHITEOUT (overlayfs only) and
  // unknown bits are EINVAL, as on other file systems.
  if (flags & ~unsigned{RENAME_NOREPLACE}) return Status::InvalidArgument("unknown rename flags");
  unsigned store_flags =
      (flags & RENAME_NOREPLACE) ? TreeEditor::kRenameNoReplace : TreeEditor::kRenameDefault;
  std::unique_lock lock(namespace_mu_);
  return Edit([&](TreeEditor& ed) -> Status {
    auto replaced = ed.Lookup(new_parent, new_name);
    auto last_link = replaced.ok() ? LastLinkFor(replaced->ino) : TreeEditor::LastLink::kDelete;
    return ed.Rename(parent, name, new_parent, new_name, store_flags, last_link);
  });
}

}  // namespace vexfs::fuse
