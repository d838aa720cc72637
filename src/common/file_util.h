// Small POSIX file helpers shared by the store and the index: errno to Status,
// and durable atomic replacement of a file (temporary file, fsync, rename, fsync
// of the directory).
#ifndef VEXFS_COMMON_FILE_UTIL_H_
#define VEXFS_COMMON_FILE_UTIL_H_

#include <string>
#include <string_view>

#include "vexfs/status.h"

namespace vexfs {

// Status for the current errno: ENOSPC -> kNoSpace, EROFS/EACCES -> kReadOnly, ...
Status ErrnoStatus(const std::string& what);

// Replaces `path` with `bytes` so that a crash leaves the old or the new file.
Status WriteFileAtomically(const std::string& path, std::string_view bytes);
// Makes a rename or creation in `dir` durable.
Status SyncDirectory(const std::string& dir);
// The whole file; kNotFound if absent.
Result<std::string> ReadWholeFile(const std::string& path);

}  // namespace vexfs

#endif  // VEXFS_COMMON_FILE_UTIL_H_
