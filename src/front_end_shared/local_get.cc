// GetToLocalPath / CopyFileTo (vexfs/local_files.h): copying files and trees out
// of a store onto the local file system; and reading and writing whole local files.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <filesystem>
#include <fstream>

#include "common/file_util.h"
#include "vexfs/local_files.h"
#include "vexfs/paths.h"

namespace vexfs {
namespace {

namespace fs = std::filesystem;

// Files up to this size are read out in one transaction, so a concurrent writer
// can never make a copy a mix of two versions; larger ones stream in pieces.
constexpr size_t kGetPiece = 256 << 20;

Status CopyRegularFile(TreeView& view, std::string_view path, const Attributes& attr,
                       std::ostream& out, const std::string& destination) {
  for (uint64_t off = 0; off < attr.size || off == 0; off += kGetPiece) {
    VEXFS_ASSIGN_OR_RETURN(std::string piece, view.Read(path, off, kGetPiece));
    out.write(piece.data(), static_cast<std::streamsize>(piece.size()));
    if (piece.size() < kGetPiece) break;
  }
  out.flush();
  if (!out) return Status::IOError("write to " + destination + " failed");
  return Status::Ok();
}

// The stored permission bits, as `cp -p` keeps them: a script stays
// executable, a shared directory sticky, whatever the umask. Setuid and setgid
// only where the stored owner (group) is the caller's, since what get makes is
// the caller's: a store anyone can write to must not hand out setuid files.
Status KeepPermissionBits(const Attributes& attr, const std::string& local) {
  mode_t mode = attr.mode & 07777;
  if (attr.uid != ::geteuid()) mode &= ~mode_t{S_ISUID};
  if (attr.gid != ::getegid()) mode &= ~mode_t{S_ISGID};
  if (::chmod(local.c_str(), mode) != 0) {
    return OutsideErrnoToStatus(errno, "set the mode of '" + local + "'");
  }
  return Status::Ok();
}

// Opens `local` for writing from its start. A read-only file there (a copy an
// earlier get made of a 0444 file, say) is replaced, as `cp
// --remove-destination` does, so a get can be repeated.
Status OpenForWrite(const std::string& local, std::ofstream* out) {
  out->open(local, std::ios::binary | std::ios::trunc);
  if (!*out && errno == EACCES && ::unlink(local.c_str()) == 0) {
    out->clear();
    out->open(local, std::ios::binary | std::ios::trunc);
  }
  if (!*out) return OutsideErrnoToStatus(errno, "cannot write local file '" + local + "'");
  return Status::Ok();
}

// A failed copy (say, a corrupt chunk) removes the local file, so no truncated
// or partial copy is left behind looking like the real thing. A mode that
// cannot be set leaves the complete copy in place and says so.
Status WriteLocalFile(TreeView& view, std::string_view path, const Attributes& attr,
                      const std::string& local) {
  std::ofstream out;
  VEXFS_RETURN_IF_ERROR(OpenForWrite(local, &out));
  Status st = CopyRegularFile(view, path, attr, out, "'" + local + "'");
  out.close();
  if (!st.ok()) {
    std::error_code ignored;
    fs::remove(local, ignored);
    return st;
  }
  return KeepPermissionBits(attr, local);
}

// mknod(2) of a FIFO, socket or device node; a device needs CAP_MKNOD, and
// without it the error names the path rather than skipping it quietly.
Status MakeLocalSpecialFile(const Attributes& attr, const std::string& local) {
  const char* name = FileTypeName(attr.type);
  mode_t bits = attr.type == FileType::kFifo         ? S_IFIFO
                : attr.type == FileType::kSocket     ? S_IFSOCK
                : attr.type == FileType::kCharDevice ? S_IFCHR
                                                     : S_IFBLK;
  if (::mknod(local.c_str(), bits | (attr.mode & 07777), static_cast<dev_t>(attr.rdev)) != 0) {
    return OutsideErrnoToStatus(errno, std::string("create ") + name + " '" + local + "'");
  }
  return Status::Ok();
}

Status MakeLocalSymlink(TreeView& view, std::string_view path, const std::string& local) {
  VEXFS_ASSIGN_OR_RETURN(std::string target, view.ReadLink(path));
  std::error_code ec;
  fs::create_symlink(target, local, ec);
  if (ec) return Status::IOError("create symlink '" + local + "': " + ec.message());
  return Status::Ok();
}

Status GetTree(TreeView& view, std::string_view path, const std::string& local, uint64_t* files) {
  VEXFS_ASSIGN_OR_RETURN(Attributes attr, view.Stat(path));
  if (attr.type == FileType::kRegular) {
    ++*files;
    return WriteLocalFile(view, path, attr, local);
  }
  if (IsSpecialFile(attr.type)) return MakeLocalSpecialFile(attr, local);
  if (attr.type == FileType::kSymlink) return MakeLocalSymlink(view, path, local);
  std::error_code ec;
  bool made = fs::create_directories(local, ec);
  if (ec) return Status::IOError("create directory '" + local + "': " + ec.message());
  VEXFS_ASSIGN_OR_RETURN(auto entries, view.List(path));
  for (const DirEntry& e : entries) {
    VEXFS_RETURN_IF_ERROR(GetTree(view, JoinPath(path, e.name), local + "/" + e.name, files));
  }
  // Last, so a read-only directory is filled first. A directory that was there
  // already is merged into and keeps its own mode.
  return made ? KeepPermissionBits(attr, local) : Status::Ok();
}

// Where a get of `path` lands: a non-directory given an existing local
// directory, or a local path ending in '/', goes inside it by its own name (as
// put and cp do).
Result<std::string> LocalDestination(TreeView& view, std::string_view path,
                                     const std::string& local) {
  VEXFS_ASSIGN_OR_RETURN(Attributes attr, view.Stat(path));
  if (attr.type == FileType::kDirectory || local.empty()) return local;
  std::error_code ec;
  if (fs::is_directory(local, ec)) {
    VEXFS_ASSIGN_OR_RETURN(ParentAndName split, SplitParent(path));
    return (local.back() == '/' ? local : local + "/") + split.name;
  }
  if (local.back() != '/') return local;
  std::string bare = local;
  while (bare.size() > 1 && bare.back() == '/') bare.pop_back();  // "f/" fails as ENOTDIR
  if (fs::exists(bare, ec)) {
    return Status::NotDirectory("local path '" + local + "' is not a directory");
  }
  return Status::NotFound("local directory '" + local + "' does not exist");
}

}  // namespace

Result<uint64_t> GetToLocalPath(TreeView& view, std::string_view path, const std::string& local) {
  VEXFS_ASSIGN_OR_RETURN(std::string destination, LocalDestination(view, path, local));
  uint64_t files = 0;
  VEXFS_RETURN_IF_ERROR(GetTree(view, path, destination, &files));
  return files;
}

Status RequireRegularFile(TreeView& view, std::string_view path, const Attributes& attr) {
  std::string shown(path);
  if (attr.type == FileType::kDirectory) {
    return Status::IsDirectory("'" + shown + "' is a directory, not a file");
  }
  if (attr.type == FileType::kSymlink) {
    // Its target names a path that may lie outside the store: it is not followed.
    VEXFS_ASSIGN_OR_RETURN(std::string target, view.ReadLink(path));
    return Status::InvalidArgument("'" + shown + "' is a symlink to '" + target +
                                   "', not a file; read its target instead");
  }
  if (attr.type != FileType::kRegular) {
    return Status::InvalidArgument("'" + shown + "' is a " + FileTypeName(attr.type) +
                                   ", not a file");
  }
  return Status::Ok();
}

Status CopyFileTo(TreeView& view, std::string_view path, std::ostream& out) {
  VEXFS_ASSIGN_OR_RETURN(Attributes attr, view.Stat(path));
  VEXFS_RETURN_IF_ERROR(RequireRegularFile(view, path, attr));
  return CopyRegularFile(view, path, attr, out, "the output stream");
}

// The common file helpers speak for the store's own files, where a permission
// error means a read-only store; for a user's file it is only an I/O error.
static Status AsLocalFileStatus(const Status& st) {
  if (st.code() == StatusCode::kReadOnly || st.code() == StatusCode::kBusy) {
    return Status::IOError(st.message());
  }
  return st;
}

Result<std::string> ReadLocalFile(const std::string& path) {
  auto bytes = ReadWholeFile(path);
  if (!bytes.ok()) return AsLocalFileStatus(bytes.status());
  return bytes;
}

Status WriteLocalFileAtomically(const std::string& path, std::string_view bytes) {
  return AsLocalFileStatus(WriteFileAtomically(path, bytes));
}

}  // namespace vexfs
