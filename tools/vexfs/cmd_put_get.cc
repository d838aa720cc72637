// `vexfs put` and `vexfs get`: copying between the local file system and a store.
// Directories are copied recursively; many files go into one transaction (one
// sync) up to a batch limit, so a large import costs few syncs.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <vector>

#include "cli.h"
#include "tree_access.h"

namespace vexfs::cli {
namespace {

namespace fs = std::filesystem;

constexpr size_t kReadPiece = 4 << 20;
// Files up to this size are read out in one transaction, so a concurrent writer
// can never make `get` return a mix of two versions; larger ones stream in pieces
// (use --at SNAPSHOT for a consistent copy of a file that is being changed).
constexpr size_t kGetPiece = 256 << 20;
constexpr uint64_t kBatchBytes = 64 << 20;
constexpr size_t kBatchFiles = 2000;

struct PutItem {
  std::string local;       // local path ("" for stdin)
  std::string store_path;  // destination in the store
  FileType type = FileType::kRegular;
  uint32_t mode = 0644;
  uint64_t size = 0;
  uint64_t rdev = 0;  // devices only
};

struct PutTotals {
  uint64_t files = 0;
  uint64_t dirs = 0;
  uint64_t bytes = 0;
};

Status ErrnoError(const std::string& what) {
  int err = errno;
  std::string msg = what + ": " + std::strerror(err);
  if (err == ENOENT) return Status::NotFound(msg);
  return Status::IOError(msg);
}

TreeEditor::NewNode NodeFor(uint32_t mode) {
  TreeEditor::NewNode node;
  node.mode = mode;
  node.uid = ::geteuid();
  node.gid = ::getegid();
  return node;
}

// Streams a local file into the store in pieces, inside the caller's transaction.
Status PutLocalFile(TreeEditor& ed, const PutItem& item) {
  int fd = ::open(item.local.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoError("open '" + item.local + "'");
  auto attr = ed.PutFile(item.store_path, "", NodeFor(item.mode));
  Status st = attr.status();
  std::vector<char> buf(kReadPiece);
  uint64_t offset = 0;
  while (st.ok()) {
    ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) st = ErrnoError("read '" + item.local + "'");
    if (n <= 0) break;
    st = ed.Write(attr->ino, offset, std::string_view(buf.data(), static_cast<size_t>(n)));
    offset += static_cast<uint64_t>(n);
  }
  ::close(fd);
  return st;
}

Status PutSymlink(TreeEditor& ed, const PutItem& item) {
  std::error_code ec;
  fs::path target = fs::read_symlink(item.local, ec);
  if (ec) return Status::IOError("read link '" + item.local + "': " + ec.message());
  VEXFS_ASSIGN_OR_RETURN(ParentAndName pn, SplitParent(item.store_path));
  VEXFS_ASSIGN_OR_RETURN(uint64_t parent, ed.MakeDirs(pn.parent, NodeFor(0755)));
  auto existing = ed.Lookup(parent, pn.name);
  if (existing.ok()) VEXFS_RETURN_IF_ERROR(ed.Unlink(parent, pn.name));
  return ed.Symlink(parent, pn.name, target.string(), NodeFor(0777)).status();
}

// A FIFO, socket or device node, as `cp -R` recreates one: the node, not its data.
Status PutSpecialFile(TreeEditor& ed, const PutItem& item) {
  VEXFS_ASSIGN_OR_RETURN(ParentAndName pn, SplitParent(item.store_path));
  VEXFS_ASSIGN_OR_RETURN(uint64_t parent, ed.MakeDirs(pn.parent, NodeFor(0755)));
  auto existing = ed.Lookup(parent, pn.name);
  if (existing.ok()) VEXFS_RETURN_IF_ERROR(ed.Unlink(parent, pn.name));
  return ed.MakeSpecialFile(parent, pn.name, item.type, item.rdev, NodeFor(item.mode)).status();
}

Status PutItemInto(TreeEditor& ed, const PutItem& item) {
  switch (item.type) {
    case FileType::kDirectory: return ed.MakeDirs(item.store_path, NodeFor(item.mode)).status();
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
  for (; it != end; it.increment(ec)) {
    if (ec) return Status::IOError("read directory '" + root + "': " + ec.message());
    std::string local = it->path().string();
    struct stat st;
    if (::lstat(local.c_str(), &st) != 0) return ErrnoError("stat '" + local + "'");
    // lexically: fs::relative() would resolve symlinks and name their targets.
    std::string rel = it->path().lexically_relative(root).generic_string();
    items->push_back(ItemFromStat(local, JoinPath(dest, rel), st));
  }
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

Status PutBatches(WorkingTree& tree, const std::vector<PutItem>& items, PutTotals* totals) {
  Progress progress("put: files");
  size_t next = 0;
  while (next < items.size()) {
    size_t begin = next;
    uint64_t bytes = 0;
    while (next < items.size() && (next == begin || (next - begin < kBatchFiles &&
                                                      bytes + items[next].size <= kBatchBytes))) {
      bytes += items[next++].size;
    }
    VEXFS_RETURN_IF_ERROR(tree.Edit([&](TreeEditor& ed) -> Status {
      for (size_t i = begin; i < next; ++i) {
        VEXFS_RETURN_IF_ERROR(PutItemInto(ed, items[i]).WithContext("put '" + items[i].store_path + "'"));
      }
      return Status::Ok();
    }));
    for (size_t i = begin; i < next; ++i) {
      (items[i].type == FileType::kDirectory ? totals->dirs : totals->files)++;
      totals->bytes += items[i].type == FileType::kRegular ? items[i].size : 0;
    }
    progress.Update(next, items.size());
  }
  return Status::Ok();
}

Status PutStdin(WorkingTree& tree, const std::string& dest, PutTotals* totals) {
  if (dest.empty() || dest.back() == '/') {
    return Status::InvalidArgument("put from stdin needs a file path, not '" + dest + "'");
  }
  std::string data((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  VEXFS_RETURN_IF_ERROR(tree.Edit([&](TreeEditor& ed) -> Status {
    return ed.PutFile(dest, data, NodeFor(0644)).status();
  }));
  totals->files = 1;
  totals->bytes = data.size();
  return Status::Ok();
}

struct PutArgs {
  std::string local;
  std::string dest;
  std::string branch;
};

// "/notes/" -> "notes/": store paths are relative to the root; a trailing '/'
// is kept because it means "into this directory".
std::string NormalizeDest(const std::string& dest) {
  size_t start = dest.find_first_not_of('/');
  if (start == std::string::npos) return "";
  return dest.substr(start);
}

Status RunPut(Store& store, const PutArgs& raw_args, PutTotals* totals) {
  PutArgs args = raw_args;
  args.dest = NormalizeDest(args.dest);
  VEXFS_ASSIGN_OR_RETURN(auto tree, store.Tree(args.branch));
  if (args.local == "-") return PutStdin(*tree, args.dest, totals);
  struct stat st;
  if (::lstat(args.local.c_str(), &st) != 0) {
    return ErrnoError("local path '" + args.local + "'");
  }
  std::vector<PutItem> items;
  if (S_ISDIR(st.st_mode)) {
    while (!args.dest.empty() && args.dest.back() == '/') args.dest.pop_back();
    items.push_back(ItemFromStat(args.local, args.dest, st));
    VEXFS_RETURN_IF_ERROR(SplitParent(args.dest).status());
    VEXFS_RETURN_IF_ERROR(CollectTree(args.local, args.dest, &items));
    if (args.dest.empty()) items.erase(items.begin());  // the root exists already
  } else {
    std::string dest = FileDestination(store, args.branch, args.local, args.dest);
    items.push_back(ItemFromStat(args.local, dest, st));
  }
  return PutBatches(*tree, items, totals);
}

// ---- get ----

Status CopyOut(TreeView& view, const std::string& path, const Attributes& attr,
               const std::string& local) {
  std::ofstream out;
  std::ostream* sink = &std::cout;
  if (local != "-") {
    out.open(local, std::ios::binary | std::ios::trunc);
    if (!out) return Status::IOError("cannot write local file '" + local + "'");
    sink = &out;
  }
  for (uint64_t off = 0; off < attr.size || off == 0; off += kGetPiece) {
    VEXFS_ASSIGN_OR_RETURN(std::string piece, view.Read(path, off, kGetPiece));
    sink->write(piece.data(), static_cast<std::streamsize>(piece.size()));
    if (piece.size() < kGetPiece) break;
  }
  sink->flush();
  if (!*sink) return Status::IOError("write to '" + local + "' failed");
  return Status::Ok();
}

// A failed copy (say, a corrupt chunk) removes the local file, so no truncated
// or partial copy is left behind looking like the real thing.
Status WriteLocalFile(TreeView& view, const std::string& path, const Attributes& attr,
                      const std::string& local) {
  Status st = CopyOut(view, path, attr, local);
  if (!st.ok() && local != "-") {
    std::error_code ignored;
    fs::remove(local, ignored);
  }
  return st;
}

// mknod(2) of a FIFO, socket or device node; a device needs CAP_MKNOD, and
// without it the error names the path rather than skipping it quietly.
Status MakeLocalSpecialFile(const std::string& path, const Attributes& attr,
                            const std::string& local) {
  const char* name = FileTypeName(attr.type);
  if (local == "-") {
    return Status::InvalidArgument("'" + path + "' is a " + name + "; give a local path");
  }
  mode_t bits = attr.type == FileType::kFifo     ? S_IFIFO
                : attr.type == FileType::kSocket ? S_IFSOCK
                : attr.type == FileType::kCharDevice ? S_IFCHR
                                                     : S_IFBLK;
  if (::mknod(local.c_str(), bits | (attr.mode & 07777), static_cast<dev_t>(attr.rdev)) != 0) {
    return ErrnoError(std::string("create ") + name + " '" + local + "'");
  }
  return Status::Ok();
}

Status GetTree(TreeView& view, const std::string& path, const std::string& local,
               uint64_t* files) {
  VEXFS_ASSIGN_OR_RETURN(Attributes attr, view.Stat(path));
  if (attr.type == FileType::kRegular) {
    ++*files;
    return WriteLocalFile(view, path, attr, local);
  }
  if (IsSpecialFile(attr.type)) return MakeLocalSpecialFile(path, attr, local);
  if (attr.type == FileType::kSymlink) {
    VEXFS_ASSIGN_OR_RETURN(std::string target, view.ReadLink(path));
    std::error_code ec;
    fs::create_symlink(target, local, ec);
    if (ec) return Status::IOError("create symlink '" + local + "': " + ec.message());
    return Status::Ok();
  }
  if (local == "-") return Status::IsDirectory("'" + path + "' is a directory; give a local path");
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

void AddPutGetCommands(CLI::App& app, Context& ctx) {
  auto put_args = std::make_shared<PutArgs>();
  CLI::App* put = app.add_subcommand(
      "put", "Copy a local file or directory (recursively), or stdin ('-'), into the store");
  put->add_option("LOCAL", put_args->local, "Local file or directory, or - for stdin")->required();
  put->add_option("STORE_PATH", put_args->dest, "Destination in the store")->required();
  put->add_option("--branch", put_args->branch, "Branch to write (default: current)");
  put->callback([&ctx, put_args] {
    auto store = ctx.OpenStore();
    if (!store) return;
    PutTotals totals;
    Status st = RunPut(*store, *put_args, &totals);
    if (!st.ok()) {
      ctx.Fail(st);
      return;
    }
    if (ctx.global.json) {
      ctx.PrintJson({{"files", totals.files}, {"dirs", totals.dirs}, {"bytes", totals.bytes}});
    } else {
      std::cout << "put " << totals.files << " file(s), " << FormatBytes(totals.bytes) << "\n";
    }
  });

  struct GetArgs {
    std::string path, local = "-", at, branch;
  };
  auto get_args = std::make_shared<GetArgs>();
  CLI::App* get = app.add_subcommand(
      "get", "Copy a file or directory out of the store (to stdout when LOCAL is - or absent)");
  get->add_option("STORE_PATH", get_args->path, "Path in the store")->required();
  get->add_option("LOCAL", get_args->local, "Local destination (default: stdout)");
  get->add_option("--at", get_args->at, "Read from this snapshot instead of the working tree");
  get->add_option("--branch", get_args->branch, "Branch to read (default: current)");
  get->callback([&ctx, get_args] {
    OpenedView view = OpenViewOrFail(ctx, get_args->at, get_args->branch);
    if (!view.view) return;
    uint64_t files = 0;
    Status st = GetTree(*view.view, get_args->path, get_args->local, &files);
    if (!st.ok()) ctx.Fail(st);
  });
}

}  // namespace vexfs::cli
