// GetToLocalPath / CopyFileTo (vexfs/local_files.h): copying files and trees out
// of a store onto the local file system; and reading and writing whole local files.
#include <sys/stat.h>

#include <cerrno>
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
                       std::ostream& out, const std::string& shown) {
  for (uint64_t off = 0; off < attr.size || off == 0; off += kGetPiece) {
    VEXFS_ASSIGN_OR_RETURN(std::string piece, view.Read(path, off, kGetPiece));
    out.write(piece.data(), static_cast<std::streamsize>(piece.size()));
    if (piece.size() < kGetPiece) break;
  }
  out.flush();
  if (!out) return Status::IOError("write to '" + shown + "' failed");
  return Status::Ok();
}

// A failed copy (say, a corrupt chunk) removes the local file, so no truncated
// or partial copy is left behind looking like the real thing.
Status WriteLocalFile(TreeView& view, std::string_view path, const Attributes& attr,
                      const std::string& local) {
  std::ofstream out(local, std::ios::binary | std::ios::trunc);
  if (!out) return Status::IOError("cannot write local file '" + local + "'");
  Status st = CopyRegularFile(view, path, attr, out, local);
  if (!st.ok()) {
    out.close();
    std::error_code ignored;
    fs::remove(local, ignored);
  }
  return st;
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
  fs::create_directories(local, ec);
  if (ec) return Status::IOError("create directory '" + local + "': " + ec.message());
  VEXFS_ASSIGN_OR_RETURN(auto entries, view.List(path));
  for (const DirEntry& e : entries) {
    VEXFS_RETURN_IF_ERROR(GetTree(view, JoinPath(path, e.name), local + "/" + e.name, files));
  }
  return Status::Ok();
}

}  // namespace

Result<uint64_t> GetToLocalPath(TreeView& view, std::string_view path, const std::string& local) {
  uint64_t files = 0;
  VEXFS_RETURN_IF_ERROR(GetTree(view, path, local, &files));
  return files;
}

Status CopyFileTo(TreeView& view, std::string_view path, std::ostream& out) {
  VEXFS_ASSIGN_OR_RETURN(Attributes attr, view.Stat(path));
  std::string shown(path);
  if (attr.type == FileType::kDirectory) {
    return Status::IsDirectory("'" + shown + "' is a directory; give a local path");
  }
  if (attr.type != FileType::kRegular) {
    return Status::InvalidArgument("'" + shown + "' is a " + FileTypeName(attr.type) +
                                   "; give a local path");
  }
  return CopyRegularFile(view, path, attr, out, "stdout");
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
