// Small POSIX helpers shared by the store, the index, USXF and the KV transport:
// errno to Status (the one mapping in src/; the mount has its own reply path),
// and durable atomic replacement of a file (temporary file, fsync, rename, fsync
// of the directory).
#ifndef VEXFS_COMMON_FILE_UTIL_H_
#define VEXFS_COMMON_FILE_UTIL_H_

#include <string>
#include <string_view>

#include "vexfs/status.h"

namespace vexfs {

// The Status for the errno value `err` of a failed call on the store's files,
// with message "<what>: <strerror(err)>" (`what` says what was being done).
// ENOSPC and EDQUOT
// -> kNoSpace; EROFS, EACCES and EPERM -> kReadOnly (what the store reacts to by
// opening read-only); ENOENT -> kNotFound; EAGAIN (EWOULDBLOCK) -> kBusy; any
// other value -> kIOError. `err` 0 is a caller's mistake and gives kIOError too.
Status ErrnoToStatus(int err, std::string_view what);
// ErrnoToStatus(errno, what): call it right after the failed call.
Status ErrnoStatus(const std::string& what);

// The Status for a failed call on something that is not the store: a socket, a
// pipe, a child process, a user's local file. kNotFound for ENOENT (a missing
// local path or command), kIOError for every other value, with the same message
// as ErrnoToStatus. A store-wide kind (read-only, no space, busy) would blame the
// store for a local problem, and the KV sender retries exactly the I/O errors.
Status OutsideErrnoToStatus(int err, std::string_view what);

// Replaces `path` with `bytes` so that a crash leaves the old or the new file.
Status WriteFileAtomically(const std::string& path, std::string_view bytes);
// Makes a rename or creation in `dir` durable.
Status SyncDirectory(const std::string& dir);
// The whole file; kNotFound if absent.
Result<std::string> ReadWholeFile(const std::string& path);

}  // namespace vexfs

#endif  // VEXFS_COMMON_FILE_UTIL_H_
