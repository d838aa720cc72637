// PutLocalPath / PutBytes (vexfs/local_files.h): copying local files, directories,
// symlinks and special files into a store in batches of one transaction each.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <vector>

#include "common/file_util.h"
#include "vexfs/local_files.h"
#include "vexfs/paths.h"
#include "vexfs/tree_ops.h"

namespace vexfs {
namespace {

namespace fs = std::filesystem;

constexpr size_t kReadPiece = 4 << 20;
// A batch ends at whichever limit comes first: bounded memory for the write
// buffers of one transaction, and few syncs for many small files.
constexpr uint64_t kBatchBytes = 64 << 20;
constexpr size_t kBatchFiles = 2000;

struct PutItem {
  std::string local;       // local path
  std::string store_path;  // destination in the store
  FileType type = FileType::kRegular;
  uint32_t mode = 0644;
  uint64_t size = 0;
  uint64_t rdev = 0;  // devices only
};

// A local file's error: never a store-wide kind such as read-only, which would
// blame the store for a local permission problem.
Status LocalError(const std::string& what) { return OutsideErrnoToStatus(errno, what); }

// Streams a local file into the store in pieces, inside the caller's transaction.
Status PutLocalFile(TreeEditor& ed, const PutItem& item) {
  int fd = ::open(item.local.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return LocalError("open '" + item.local + "'");
  auto attr = ed.PutFile(item.store_path, "", CallerOwnedNode(item.mode));
  Status st = attr.status();
  std::vector<char> buf(kReadPiece);
  uint64_t offset = 0;
  while (st.ok()) {
    ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) st = LocalError("read '" + item.local + "'");
    if (n <= 0) break;
    st = ed.Write(attr->ino, offset, std::string_view(buf.data(), static_cast<size_t>(n)));
    offset += static_cast<uint64_t>(n);
  }
  ::close(fd);
  return st;
}

// The directory that will hold `store_path`, made if missing, with any entry
// already at `store_path` removed.
Result<uint64_t> ClearedParent(TreeEditor& ed, const std::string& store_path,
                               std::string* name) {
  VEXFS_ASSIGN_OR_RETURN(ParentAndName pn, SplitParent(store_path));
  VEXFS_ASSIGN_OR_RETURN(uint64_t parent, ed.MakeDirs(pn.parent, CallerOwnedNode(0755)));
  if (ed.Lookup(parent, pn.name).ok()) VEXFS_RETURN_IF_ERROR(ed.Unlink(parent, pn.name));
  *name = std::move(pn.name);
  return parent;
}

Status PutSymlink(TreeEditor& ed, const PutItem& item) {
  std::error_code ec;
  fs::path target = fs::read_symlink(item.local, ec);
  if (ec) return Status::IOError("read link '" + item.local + "': " + ec.message());
  std::string name;
  VEXFS_ASSIGN_OR_RETURN(uint64_t parent, ClearedParent(ed, item.store_path, &name));
  return ed.Symlink(parent, name, target.string(), CallerOwnedNode(0777)).status();
}

// A FIFO, socket or device node, as `cp -R` recreates one: the node, not its data.
Status PutSpecialFile(TreeEditor& ed, const PutItem& item) {
  std::string name;
  VEXFS_ASSIGN_OR_RETURN(uint64_t parent, ClearedParent(ed, item.store_path, &name));
  return ed.MakeSpecialFile(parent, name, item.type, item.rdev, CallerOwnedNode(item.mode)).status();
}

// A directory keeps its permission bits too (a shared sticky directory, a
// private 0700 one), as files do. Set only when they differ: a change dirties
// the directory, and the next snapshot and diff would rework it.
Status PutDirectory(TreeEditor& ed, const PutItem& item) {
  VEXFS_ASSIGN_OR_RETURN(uint64_t ino, ed.MakeDirs(item.store_path, CallerOwnedNode(item.mode)));
  VEXFS_ASSIGN_OR_RETURN(Attributes attr, ed.GetAttr(ino));
  if ((attr.mode & 07777) == item.mode) return Status::Ok();
  TreeEditor::AttrChange change;
  change.mode = item.mode;
  return ed.SetAttr(ino, change).status();
}

// A top-level '.vexfs' is refused by the store (the mount's views are there):
// said before the first batch, so nothing of the import is half committed.
Status RefuseReservedRootItem(const std::vector<PutItem>& items) {
  for (const PutItem& item : items) {
    if (item.store_path == kReservedRootName) {
      return Status::InvalidArgument("'" + item.local + "' would be stored as '.vexfs' at the "
                                     "root, which is reserved for a mount's views; put it "
                                     "elsewhere or rename it");
    }
  }
  return Status::Ok();
}

Status PutItemInto(TreeEditor& ed, const PutItem& item) {
  switch (item.type) {
    case FileType::kDirectory: return PutDirectory(ed, item);
    case FileType::kSymlink: return PutSymlink(ed, item);
    case FileType::kRegular: return PutLocalFile(ed, item);
    default: return PutSpecialFile(ed, item);
  }
}

FileType TypeOfMode(mode_t mode) {
  if (S_ISDIR(mode)) return FileType::kDirectory;
  if (S_ISLNK(mode)) return FileType::kSymlink;
  if (S_ISFIFO(mode)) return FileType::kFifo;
  if (S_ISSOCK(mode)) return FileType::kSocket;
  if (S_ISCHR(mode)) return FileType::kCharDevice;
  if (S_ISBLK(mode)) return FileType::kBlockDevice;
  return FileType::kRegular;
}

PutItem ItemFromStat(const std::string& local, const std::string& dest, const struct stat& st) {
  PutItem item{local, dest, TypeOfMode(st.st_mode), static_cast<uint32_t>(st.st_mode & 07777),
               static_cast<uint64_t>(st.st_size)};
  if (IsSpecialFile(item.type)) item.size = 0;
  if (IsDeviceFile(item.type)) item.rdev = st.st_rdev;
  return item;
}

// Everything under a local directory, parents before children.
Status CollectTree(const std::string& root, const std::string& dest,
                   std::vector<PutItem>* items) {
  std::error_code ec;
  fs::recursive_directory_iterator it(root, ec), end;
  if (ec) return Status::IOError("read directory '" + root + "': " + ec.message());
  // A failed step (an unreadable subdirectory) sets `ec` and ends the walk, so
  // `ec` is checked after the loop too: nothing below the root is skipped silently.
  for (; it != end; it.increment(ec)) {
    std::string local = it->path().string();
    struct stat st;
    if (::lstat(local.c_str(), &st) != 0) return LocalError("stat '" + local + "'");
    // lexically: fs::relative() would resolve symlinks and name their targets.
    std::string rel = it->path().lexically_relative(root).generic_string();
    items->push_back(ItemFromStat(local, JoinPath(dest, rel), st));
  }
  if (ec) return Status::IOError("read directory under '" + root + "': " + ec.message());
  return Status::Ok();
}

// Where a single local file lands: inside `dest` when it names a directory.
std::string FileDestination(Store& store, const std::string& branch, const std::string& local,
                            const std::string& dest) {
  std::string base = fs::path(local).filename().string();
  if (dest.empty() || dest.back() == '/') {
    return JoinPath(dest.substr(0, dest.find_last_not_of('/') + 1), base);
  }
  auto tree = store.Tree(branch);
  if (tree.ok()) {
    auto attr = (*tree)->Stat(dest);
    if (attr.ok() && attr->type == FileType::kDirectory) return JoinPath(dest, base);
  }
  return dest;
}

// The end of the batch that starts at `begin`.
size_t BatchEnd(const std::vector<PutItem>& items, size_t begin) {
  size_t end = begin + 1;
  uint64_t bytes = items[begin].size;
  while (end < items.size() && end - begin < kBatchFiles && bytes + items[end].size <= kBatchBytes) {
    bytes += items[end++].size;
  }
  return end;
}

void Count(const PutItem& item, PutReport* report) {
  (item.type == FileType::kDirectory ? report->dirs : report->files)++;
  report->bytes += item.type == FileType::kRegular ? item.size : 0;
}

Result<PutReport> PutBatches(WorkingTree& tree, const std::vector<PutItem>& items,
                             const PutOptions& options) {
  PutReport report;
  for (size_t begin = 0; begin < items.size();) {
    size_t end = BatchEnd(items, begin);
    VEXFS_RETURN_IF_ERROR(tree.Edit([&](TreeEditor& ed) -> Status {
      for (size_t i = begin; i < end; ++i) {
        VEXFS_RETURN_IF_ERROR(
            PutItemInto(ed, items[i]).WithContext("put '" + items[i].store_path + "'"));
      }
      return Status::Ok();
    }));
    for (size_t i = begin; i < end; ++i) Count(items[i], &report);
    if (options.progress) options.progress(end, items.size());
    begin = end;
  }
  return report;
}

// "/notes/" -> "notes/": store paths are relative to the root; a trailing '/'
// is kept because it means "into this directory".
std::string WithoutLeadingSlashes(std::string_view dest) {
  size_t start = dest.find_first_not_of('/');
  if (start == std::string_view::npos) return "";
  return std::string(dest.substr(start));
}

}  // namespace

Result<PutReport> PutLocalPath(Store& store, const std::string& local, std::string_view raw_dest,
                               const PutOptions& options) {
  std::string dest = WithoutLeadingSlashes(raw_dest);
  VEXFS_ASSIGN_OR_RETURN(auto tree, store.Tree(options.branch));
  struct stat st;
  if (::lstat(local.c_str(), &st) != 0) return LocalError("local path '" + local + "'");
  std::vector<PutItem> items;
  if (S_ISDIR(st.st_mode)) {
    while (!dest.empty() && dest.back() == '/') dest.pop_back();
    items.push_back(ItemFromStat(local, dest, st));
    VEXFS_RETURN_IF_ERROR(SplitParent(dest).status());
    VEXFS_RETURN_IF_ERROR(CollectTree(local, dest, &items));
    // The root exists already, and keeps its own mode.
    if (dest.empty()) items.erase(items.begin());
  } else {
    items.push_back(ItemFromStat(local, FileDestination(store, options.branch, local, dest), st));
  }
  VEXFS_RETURN_IF_ERROR(RefuseReservedRootItem(items));
  return PutBatches(*tree, items, options);
}

Result<PutReport> PutBytes(Store& store, std::string_view raw_dest, std::string_view data,
                           const PutOptions& options) {
  std::string dest = WithoutLeadingSlashes(raw_dest);
  if (dest.empty() || dest.back() == '/') {
    return Status::InvalidArgument("put of bytes needs a file path, not '" + std::string(raw_dest) +
                                   "'");
  }
  VEXFS_ASSIGN_OR_RETURN(auto tree, store.Tree(options.branch));
  VEXFS_RETURN_IF_ERROR(tree->Edit([&](TreeEditor& ed) -> Status {
    return ed.PutFile(dest, data, CallerOwnedNode(0644)).status();
  }));
  if (options.progress) options.progress(1, 1);
  return PutReport{1, 0, data.size()};
}

}  // namespace vexfs
