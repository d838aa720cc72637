// Copying between the local file system and a store: what `vexfs put` and
// `vexfs get` do, for every front end that imports or exports files. Directories
// are copied recursively with their symlinks and special files (FIFOs, sockets,
// device nodes); many files go into one store transaction, up to a batch limit,
// so a large import costs few syncs.
//
// Thread-safety: free functions; they use the Store or TreeView given to them as
// those classes allow (one TreeView per thread).
#ifndef VEXFS_LOCAL_FILES_H_
#define VEXFS_LOCAL_FILES_H_

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

#include "vexfs/status.h"
#include "vexfs/store.h"

// The public API: exported from libvexfs.so, which is built with hidden visibility.
#pragma GCC visibility push(default)

namespace vexfs {

struct PutOptions {
  std::string branch;  // the branch written ("" = current)
  // Called after each batch commits: items (files, directories, links) stored so
  // far, of all found. May be empty.
  std::function<void(uint64_t done, uint64_t total)> progress;
};

struct PutReport {
  uint64_t files = 0;  // everything but directories: regular files, links, special files
  uint64_t dirs = 0;
  uint64_t bytes = 0;  // of regular files
};

// Copies the local file, directory (recursively), symlink or special file at
// `local` into the store. `dest` is a store path; a single file lands inside
// `dest` when `dest` ends with '/' or names an existing directory, else at
// `dest` itself; a directory's contents land at `dest`. Existing files are
// replaced, missing parent directories made. Files and directories are owned by
// the calling process's user and group and keep their permission bits (setuid,
// setgid and sticky included; the root keeps its own).
// Errors: kNotFound when `local` does not exist; kIOError when it cannot be read;
// the store's own errors (kInvalidArgument for a bad `dest`, kNoSpace, ...)
// naming the store path. Batches committed before an error stay committed.
Result<PutReport> PutLocalPath(Store& store, const std::string& local, std::string_view dest,
                               const PutOptions& options = {});

// Stores `data` as the regular file `dest` (a file path, not a directory),
// replacing what was there and making missing parent directories.
// kInvalidArgument when `dest` is empty or ends with '/'; the store's errors
// otherwise (kNotFound for an unknown branch, kNoSpace, kReadOnly, ...).
Result<PutReport> PutBytes(Store& store, std::string_view dest, std::string_view data,
                           const PutOptions& options = {});

// Copies `path` of `view` (a file, symlink, special file or directory,
// recursively) to the local path `local`; a non-directory lands inside `local`
// when that ends with '/' or names an existing directory (as put and cp do).
// Returns how many regular files were written. Files and the directories it
// makes get the stored permission bits (as `cp -p`; setuid and setgid only
// where the stored owner and group are the caller's). An existing local file is
// overwritten (through a symlink, as open(2) does; a read-only one is replaced);
// an existing directory is merged into and keeps its mode; a symlink or special
// file whose local path exists already fails with kIOError. A regular
// file that fails part way (say, a corrupt chunk: kCorruption) is removed, so no
// partial copy is left looking like the real thing; a directory copy that fails
// keeps what it copied before the failure. Errors: the view's (kNotFound for a
// missing `path`, kCorruption); kNotFound when a local parent directory is
// missing, kNotDirectory when `local` ends with '/' but names a file, kIOError
// naming the local path that could not be made or written otherwise. Making a
// device node needs CAP_MKNOD; without it the error names the path.
Result<uint64_t> GetToLocalPath(TreeView& view, std::string_view path, const std::string& local);

// Ok when `path`, whose attributes are `attr`, is a regular file; otherwise
// kIsDirectory, or kInvalidArgument naming what it is (a symlink with its
// target: one is never followed, as it may lead outside the store). The one
// refusal every front end that reads a file's bytes gives.
Status RequireRegularFile(TreeView& view, std::string_view path, const Attributes& attr);

// Writes the content of the regular file `path` to `out`. Files up to 256 MiB
// are read in one transaction, so a concurrent writer never yields a mix of two
// versions (read a snapshot for a consistent copy of a larger changing file).
// kIsDirectory / kInvalidArgument when `path` is not a regular file (a symlink
// is not followed: its target may lie outside the store), kIOError when
// `out` fails. `out` must not throw (the default for streams): the library does
// not.
Status CopyFileTo(TreeView& view, std::string_view path, std::ostream& out);

// The whole content of the local file `path`. kNotFound when it is missing,
// kIOError when it cannot be read; the message names it.
Result<std::string> ReadLocalFile(const std::string& path);

// Replaces the local file `path` with `bytes` atomically: `path + ".tmp"`, fsync,
// rename, fsync of the directory; a crash leaves the old or the new file. Two
// writers of one path at once must not be used. kNoSpace when the disk is full,
// kIOError otherwise; the message names the path.
Status WriteLocalFileAtomically(const std::string& path, std::string_view bytes);

}  // namespace vexfs

#pragma GCC visibility pop

#endif  // VEXFS_LOCAL_FILES_H_
