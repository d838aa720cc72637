// Validation of user-supplied names and paths, shared by the store and the CLI.
#ifndef VEXFS_COMMON_NAMES_H_
#define VEXFS_COMMON_NAMES_H_

#include <string>
#include <string_view>
#include <vector>

#include "vexfs/status.h"

namespace vexfs {

// A file or directory name: 1..kMaxNameLength bytes, no '/', no NUL, not "." or "..".
Status ValidateFileName(std::string_view name);

// Splits a store path ("a/b/c", "/a/b", "" for the root) into validated
// components. Rejects "..", "." and empty components with a message naming the
// path, so nothing can escape the tree.
Result<std::vector<std::string>> SplitStorePath(std::string_view path);

// A branch or snapshot name: 1..255 bytes of [A-Za-z0-9._-], not starting with '.'
// or '-', and not "WORKING". `what` names the kind in errors ("snapshot").
Status ValidateRefName(std::string_view name, std::string_view what);

}  // namespace vexfs

#endif  // VEXFS_COMMON_NAMES_H_
