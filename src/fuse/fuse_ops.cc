// fuse_lowlevel_ops: thin forwarding to Filesystem, one reply per request.
#include "fuse/fuse_ops.h"

#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/xattr.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <vector>

namespace vexfs::fuse {
namespace {

MountState& State(fuse_req_t req) { return *static_cast<MountState*>(fuse_req_userdata(req)); }
Filesystem& Fs(fuse_req_t req) { return *State(req).fs; }

timespec ToTimespec(TimeNs t) {
  return timespec{static_cast<time_t>(t / 1000000000), static_cast<long>(t % 1000000000)};
}

TimeNs ToNs(const timespec& t) { return TimeNs{t.tv_sec} * 1000000000 + t.tv_nsec; }

mode_t TypeBits(FileType type) {
  switch (type) {
    case FileType::kDirectory:
      return S_IFDIR;
    case FileType::kSymlink:
      return S_IFLNK;
    case FileType::kFifo:
      return S_IFIFO;
    case FileType::kSocket:
      return S_IFSOCK;
    case FileType::kCharDevice:
      return S_IFCHR;
    case FileType::kBlockDevice:
      return S_IFBLK;
    case FileType::kRegular:
      break;
  }
  return S_IFREG;
}

struct stat ToStat(const Attributes& a) {
  struct stat st {};
  st.st_ino = a.ino;
  st.st_mode = TypeBits(a.type) | a.mode;
  st.st_nlink = a.nlink;
  st.st_uid = a.uid;
  st.st_gid = a.gid;
  st.st_rdev = static_cast<dev_t>(a.rdev);
  st.st_size = static_cast<off_t>(a.size);
  st.st_blksize = 128 * 1024;  // the size FUSE moves per request
  st.st_blocks = static_cast<blkcnt_t>((a.size + 511) / 512);
  st.st_atim = ToTimespec(a.atime);
  st.st_mtim = ToTimespec(a.mtime);
  st.st_ctim = ToTimespec(a.ctime);
  return st;
}

// Errors the kernel should not see silently: the store itself is in trouble.
void LogIfSerious(const Status& st) {
  if (st.code() == StatusCode::kIOError || st.code() == StatusCode::kCorruption) {
    std::fprintf(stderr, "vexfs mount: %s\n", st.ToString().c_str());
  }
}

void ReplyErr(fuse_req_t req, const Status& st, OpKind kind = OpKind::kGeneral) {
  LogIfSerious(st);
  fuse_reply_err(req, st.ok() ? 0 : ErrnoOf(st, kind));
}

void ReplyEntry(fuse_req_t req, const Result<Attributes>& attr, OpKind kind = OpKind::kGeneral) {
  if (!attr.ok()) return ReplyErr(req, attr.status(), kind);
  fuse_entry_param e{};
  e.ino = attr->ino;
  e.attr = ToStat(*attr);
  e.attr_timeout = State(req).cache_seconds;
  e.entry_timeout = State(req).cache_seconds;
  // An interrupted request never reaches the kernel, which will not forget it.
  // (The reply frees `req`: take what is needed from it first.)
  Filesystem& fs = Fs(req);
  if (fuse_reply_entry(req, &e) == -ENOENT) fs.Forget(attr->ino, 1);
}

// The kernel passes names of up to 1024 bytes (FUSE_NAME_MAX); a name over the
// 255 every entry may have is too long in every operation, as on ext4, even
// where it only names something to find (lookup, unlink, rename's source): it
// cannot exist, and ENOENT would say it might.
bool RejectLongName(fuse_req_t req, const char* name) {
  if (std::strlen(name) <= kMaxNameLength) return false;
  fuse_reply_err(req, ENAMETOOLONG);
  return true;
}

// Whether the process behind `req` has `gid` among its supplementary groups
// (libfuse reads them from /proc; false when it cannot).
bool InSupplementaryGroup(fuse_req_t req, uint32_t gid) {
  std::vector<gid_t> groups(64);
  for (;;) {
    int n = fuse_req_getgroups(req, static_cast<int>(groups.size()), groups.data());
    if (n <= 0) return false;
    if (static_cast<size_t>(n) <= groups.size()) {
      groups.resize(static_cast<size_t>(n));
      break;
    }
    groups.resize(static_cast<size_t>(n));
  }
  return std::find(groups.begin(), groups.end(), gid) != groups.end();
}

// Used while `req` is being answered, before the reply frees it.
Caller CallerOf(fuse_req_t req) {
  const fuse_ctx* ctx = fuse_req_ctx(req);
  return Caller{ctx->uid, ctx->gid,
                [req](uint32_t gid) { return InSupplementaryGroup(req, gid); }};
}

void OnInit(void* /*userdata*/, fuse_conn_info* conn) {
  // Larger requests mean fewer round trips for big sequential reads and writes.
  conn->max_write = 1 << 20;
  conn->max_readahead = 1 << 20;
  // No kernel write-back cache: writes come here, where they are buffered per
  // inode and every handle sees them (docs/mount.md).
  conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
  // File handles (name_to_handle_at, NFS export) stay valid after the kernel
  // drops the inode and across remounts: it looks them up as "." (filesystem.cc).
  if (conn->capable & FUSE_CAP_EXPORT_SUPPORT) conn->want |= FUSE_CAP_EXPORT_SUPPORT;
}

void OnLookup(fuse_req_t req, fuse_ino_t parent, const char* name) {
  if (RejectLongName(req, name)) return;
  ReplyEntry(req, Fs(req).Lookup(parent, name));
}

void OnForget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup) {
  Fs(req).Forget(ino, nlookup);
  fuse_reply_none(req);
}

void OnForgetMulti(fuse_req_t req, size_t count, fuse_forget_data* forgets) {
  for (size_t i = 0; i < count; ++i) Fs(req).Forget(forgets[i].ino, forgets[i].nlookup);
  fuse_reply_none(req);
}

void OnGetattr(fuse_req_t req, fuse_ino_t ino, fuse_file_info* /*fi*/) {
  auto attr = Fs(req).GetAttr(ino);
  if (!attr.ok()) return ReplyErr(req, attr.status());
  struct stat st = ToStat(*attr);
  fuse_reply_attr(req, &st, State(req).cache_seconds);
}

void OnSetattr(fuse_req_t req, fuse_ino_t ino, struct stat* attr, int to_set,
               fuse_file_info* /*fi*/) {
  SetAttrRequest r;
  if (to_set & FUSE_SET_ATTR_MODE) r.mode = attr->st_mode & 07777;
  if (to_set & FUSE_SET_ATTR_UID) r.uid = attr->st_uid;
  if (to_set & FUSE_SET_ATTR_GID) r.gid = attr->st_gid;
  if (to_set & FUSE_SET_ATTR_SIZE) r.size = static_cast<uint64_t>(attr->st_size);
  if (to_set & FUSE_SET_ATTR_ATIME) r.atime = ToNs(attr->st_atim);
  if (to_set & FUSE_SET_ATTR_MTIME) r.mtime = ToNs(attr->st_mtim);
  if (to_set & FUSE_SET_ATTR_ATIME_NOW) r.atime = NowNs();
  if (to_set & FUSE_SET_ATTR_MTIME_NOW) r.mtime = NowNs();
  r.caller = CallerOf(req);
  auto result = Fs(req).SetAttr(ino, r);
  if (!result.ok()) return ReplyErr(req, result.status());
  struct stat st = ToStat(*result);
  fuse_reply_attr(req, &st, State(req).cache_seconds);
}

void OnReadlink(fuse_req_t req, fuse_ino_t ino) {
  auto target = Fs(req).ReadLink(ino);
  if (!target.ok()) return ReplyErr(req, target.status());
  fuse_reply_readlink(req, target->c_str());
}

void OnMknod(fuse_req_t req, fuse_ino_t parent, const char* name, mode_t mode, dev_t rdev) {
  if (RejectLongName(req, name)) return;
  ReplyEntry(req, Fs(req).Mknod(parent, name, mode, rdev, CallerOf(req)));
}

void OnMkdir(fuse_req_t req, fuse_ino_t parent, const char* name, mode_t mode) {
  if (RejectLongName(req, name)) return;
  ReplyEntry(req, Fs(req).Mkdir(parent, name, mode, CallerOf(req)));
}

void OnSymlink(fuse_req_t req, const char* link, fuse_ino_t parent, const char* name) {
  if (RejectLongName(req, name)) return;
  ReplyEntry(req, Fs(req).Symlink(parent, name, link, CallerOf(req)));
}

void OnLink(fuse_req_t req, fuse_ino_t ino, fuse_ino_t new_parent, const char* new_name) {
  if (RejectLongName(req, new_name)) return;
  ReplyEntry(req, Fs(req).Link(ino, new_parent, new_name), OpKind::kLink);
}

void OnUnlink(fuse_req_t req, fuse_ino_t parent, const char* name) {
  if (RejectLongName(req, name)) return;
  ReplyErr(req, Fs(req).Unlink(parent, name));
}

void OnRmdir(fuse_req_t req, fuse_ino_t parent, const char* name) {
  if (RejectLongName(req, name)) return;
  ReplyErr(req, Fs(req).Rmdir(parent, name));
}

void OnRename(fuse_req_t req, fuse_ino_t parent, const char* name, fuse_ino_t new_parent,
              const char* new_name, unsigned int flags) {
  if (RejectLongName(req, name) || RejectLongName(req, new_name)) return;
  ReplyErr(req, Fs(req).Rename(parent, name, new_parent, new_name, flags));
}

void FillOpen(const OpenedFile& file, fuse_file_info* fi) {
  fi->fh = file.fh;
  fi->direct_io = file.direct_io;
  fi->keep_cache = 0;  // another process may have changed the file since
}

void OnOpen(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) {
  auto file = Fs(req).Open(ino, fi->flags, CallerOf(req));
  if (!file.ok()) return ReplyErr(req, file.status());
  FillOpen(*file, fi);
  Filesystem& fs = Fs(req);  // the reply frees `req`
  if (fuse_reply_open(req, fi) == -ENOENT) (void)fs.Release(ino, file->fh);  // interrupted
}

void OnCreate(fuse_req_t req, fuse_ino_t parent, const char* name, mode_t mode,
              fuse_file_info* fi) {
  if (RejectLongName(req, name)) return;
  auto created = Fs(req).Create(parent, name, mode, fi->flags, CallerOf(req));
  if (!created.ok()) return ReplyErr(req, created.status());
  const auto& [attr, file] = *created;
  FillOpen(file, fi);
  fuse_entry_param e{};
  e.ino = attr.ino;
  e.attr = ToStat(attr);
  e.attr_timeout = State(req).cache_seconds;
  e.entry_timeout = State(req).cache_seconds;
  Filesystem& fs = Fs(req);  // the reply frees `req`
  if (fuse_reply_create(req, &e, fi) == -ENOENT) (void)fs.Release(attr.ino, file.fh);
}

void OnRead(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, fuse_file_info* fi) {
  // The reply is written from the store's map while the read transaction is
  // open: no copy in this process.
  std::vector<iovec> iov;
  bool replied = false;
  auto reply = [&](const std::vector<std::string_view>& pieces) {
    iov.reserve(pieces.size());
    for (std::string_view piece : pieces) {
      iov.push_back(iovec{const_cast<char*>(piece.data()), piece.size()});
    }
    fuse_reply_iov(req, iov.data(), static_cast<int>(iov.size()));
    replied = true;
  };
  Status st = Fs(req).ReadTo(ino, fi->fh, static_cast<uint64_t>(off), size, reply);
  if (!replied) ReplyErr(req, st.ok() ? Status::IOError("read produced no reply") : st);
}

void OnWrite(fuse_req_t req, fuse_ino_t ino, const char* buf, size_t size, off_t off,
             fuse_file_info* fi) {
  auto written = Fs(req).Write(ino, fi->fh, static_cast<uint64_t>(off),
                               std::string_view(buf, size), CallerOf(req));
  if (!written.ok()) return ReplyErr(req, written.status());
  fuse_reply_write(req, *written);
}

void OnFlush(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) {
  ReplyErr(req, Fs(req).Flush(ino, fi->fh));
}

void OnRelease(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) {
  ReplyErr(req, Fs(req).Release(ino, fi->fh));
}

void OnFsync(fuse_req_t req, fuse_ino_t ino, int /*datasync*/, fuse_file_info* fi) {
  ReplyErr(req, Fs(req).Fsync(ino, fi->fh));
}

void OnFallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t offset, off_t length,
                 fuse_file_info* /*fi*/) {
  if (offset < 0 || length <= 0) return ReplyErr(req, Status::InvalidArgument("bad range"));
  ReplyErr(req, Fs(req).Fallocate(ino, mode, static_cast<uint64_t>(offset),
                                  static_cast<uint64_t>(length), CallerOf(req)));
}

void OnLseek(fuse_req_t req, fuse_ino_t ino, off_t offset, int whence, fuse_file_info* fi) {
  // Like ext4: a negative offset has no data or hole after it (ENXIO).
  std::optional<uint64_t> at;
  if (offset >= 0) {
    auto found = Fs(req).Seek(ino, fi->fh, static_cast<uint64_t>(offset), whence);
    if (!found.ok()) return ReplyErr(req, found.status());
    at = *found;
  }
  if (!at) {
    fuse_reply_err(req, ENXIO);
    return;
  }
  fuse_reply_lseek(req, static_cast<off_t>(*at));
}

void OnCopyFileRange(fuse_req_t req, fuse_ino_t ino_in, off_t off_in, fuse_file_info* /*fi_in*/,
                     fuse_ino_t ino_out, off_t off_out, fuse_file_info* /*fi_out*/, size_t len,
                     int flags) {
  if (flags != 0) return ReplyErr(req, Status::InvalidArgument("copy_file_range flags"));
  if (off_in < 0 || off_out < 0) return ReplyErr(req, Status::InvalidArgument("bad offset"));
  auto copied = Fs(req).CopyFileRange(ino_in, static_cast<uint64_t>(off_in), ino_out,
                                      static_cast<uint64_t>(off_out), len);
  if (!copied.ok()) return ReplyErr(req, copied.status());
  fuse_reply_write(req, static_cast<size_t>(*copied));
}

void OnOpendir(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) {
  auto fh = Fs(req).OpenDir(ino);
  if (!fh.ok()) return ReplyErr(req, fh.status());
  fi->fh = *fh;
  Filesystem& fs = Fs(req);  // the reply frees `req`
  if (fuse_reply_open(req, fi) == -ENOENT) (void)fs.ReleaseDir(*fh);
}

void OnReaddir(fuse_req_t req, fuse_ino_t /*ino*/, size_t size, off_t off, fuse_file_info* fi) {
  auto listing = Fs(req).DirListing(fi->fh, static_cast<uint64_t>(off));
  if (!listing.ok()) return ReplyErr(req, listing.status());
  std::string buf(size, '\0');
  size_t used = 0;
  const std::vector<DirItem>& items = **listing;
  for (size_t i = static_cast<size_t>(off); i < items.size(); ++i) {
    struct stat st {};
    st.st_ino = items[i].ino;
    st.st_mode = TypeBits(items[i].type);
    size_t need = fuse_add_direntry(req, buf.data() + used, size - used, items[i].name.c_str(), &st,
                                    static_cast<off_t>(i + 1));
    if (need > size - used) break;
    used += need;
  }
  fuse_reply_buf(req, buf.data(), used);
}

void OnReleasedir(fuse_req_t req, fuse_ino_t /*ino*/, fuse_file_info* fi) {
  ReplyErr(req, Fs(req).ReleaseDir(fi->fh));
}

void OnFsyncdir(fuse_req_t req, fuse_ino_t /*ino*/, int /*datasync*/, fuse_file_info* /*fi*/) {
  ReplyErr(req, Fs(req).SyncStore());
}

void OnStatfs(fuse_req_t req, fuse_ino_t /*ino*/) {
  auto st = Fs(req).StatFs();
  if (!st.ok()) return ReplyErr(req, st.status());
  fuse_reply_statfs(req, &*st);
}

void OnSetxattr(fuse_req_t req, fuse_ino_t ino, const char* name, const char* value, size_t size,
                int flags) {
  XattrMode mode = (flags & XATTR_CREATE)    ? XattrMode::kCreate
                   : (flags & XATTR_REPLACE) ? XattrMode::kReplace
                                             : XattrMode::kAny;
  ReplyErr(req, Fs(req).SetXattr(ino, name, std::string_view(value, size), mode), OpKind::kXattr);
}

// getxattr and listxattr share the size protocol: 0 asks for the size.
void ReplyXattrBytes(fuse_req_t req, const std::string& bytes, size_t size) {
  if (size == 0) {
    fuse_reply_xattr(req, bytes.size());
  } else if (bytes.size() > size) {
    fuse_reply_err(req, ERANGE);
  } else {
    fuse_reply_buf(req, bytes.data(), bytes.size());
  }
}

void OnGetxattr(fuse_req_t req, fuse_ino_t ino, const char* name, size_t size) {
  auto value = Fs(req).GetXattr(ino, name);
  if (!value.ok()) return ReplyErr(req, value.status(), OpKind::kXattr);
  ReplyXattrBytes(req, *value, size);
}

void OnListxattr(fuse_req_t req, fuse_ino_t ino, size_t size) {
  auto names = Fs(req).ListXattrs(ino);
  if (!names.ok()) return ReplyErr(req, names.status(), OpKind::kXattr);
  std::string joined;
  for (const std::string& n : *names) joined.append(n).push_back('\0');
  ReplyXattrBytes(req, joined, size);
}

void OnRemovexattr(fuse_req_t req, fuse_ino_t ino, const char* name) {
  ReplyErr(req, Fs(req).RemoveXattr(ino, name), OpKind::kXattr);
}

void OnCreateOps(fuse_lowlevel_ops* ops) {
  ops->init = OnInit;
  ops->lookup = OnLookup;
  ops->forget = OnForget;
  ops->forget_multi = OnForgetMulti;
  ops->getattr = OnGetattr;
  ops->setattr = OnSetattr;
  ops->readlink = OnReadlink;
  ops->mknod = OnMknod;
  ops->mkdir = OnMkdir;
  ops->symlink = OnSymlink;
  ops->link = OnLink;
  ops->unlink = OnUnlink;
  ops->rmdir = OnRmdir;
  ops->rename = OnRename;
  ops->open = OnOpen;
  ops->create = OnCreate;
  ops->read = OnRead;
  ops->write = OnWrite;
  ops->flush = OnFlush;
  ops->release = OnRelease;
  ops->fsync = OnFsync;
  ops->fallocate = OnFallocate;
  ops->copy_file_range = OnCopyFileRange;
  ops->lseek = OnLseek;
  ops->opendir = OnOpendir;
  ops->readdir = OnReaddir;
  ops->releasedir = OnReleasedir;
  ops->fsyncdir = OnFsyncdir;
  ops->statfs = OnStatfs;
  ops->setxattr = OnSetxattr;
  ops->getxattr = OnGetxattr;
  ops->listxattr = OnListxattr;
  ops->removexattr = OnRemovexattr;
}

}  // namespace

int ErrnoOf(const Status& status, OpKind kind) {
  switch (status.code()) {
    case StatusCode::kOk:
      return 0;
    case StatusCode::kNotFound:
      return kind == OpKind::kXattr ? ENODATA : ENOENT;
    case StatusCode::kCorruption:
    case StatusCode::kIOError:
      return EIO;
    case StatusCode::kInvalidArgument:
      return EINVAL;
    case StatusCode::kAlreadyExists:
      return EEXIST;
    case StatusCode::kNotEmpty:
      return ENOTEMPTY;
    case StatusCode::kNotDirectory:
      return ENOTDIR;
    case StatusCode::kIsDirectory:
      return EISDIR;
    case StatusCode::kNoSpace:
      return ENOSPC;
    case StatusCode::kReadOnly:
      return EROFS;
    case StatusCode::kBusy:
      return EBUSY;
    case StatusCode::kNameTooLong:
      return kind == OpKind::kXattr ? ERANGE : ENAMETOOLONG;
    case StatusCode::kFileTooLarge:
      return kind == OpKind::kXattr ? E2BIG : EFBIG;
    case StatusCode::kNotSupported:
      return kind == OpKind::kLink ? EPERM : EOPNOTSUPP;
    case StatusCode::kPermissionDenied:
      return EACCES;
  }
  return EIO;
}

void ForgetCachedAttributes(MountState* state, uint64_t ino) {
  // Attributes only (a negative offset): no page is dropped, no lock is taken
  // that a request in flight could hold.
  if (state->session) (void)fuse_lowlevel_notify_inval_inode(state->session, ino, -1, 0);
}

const fuse_lowlevel_ops& LowLevelOps() {
  static const fuse_lowlevel_ops ops = [] {
    fuse_lowlevel_ops o{};
    OnCreateOps(&o);
    return o;
  }();
  return ops;
}

}  // namespace vexfs::fuse
