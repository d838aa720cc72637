// Store paths and names: validating what a user supplies (file names, paths,
// branch and snapshot names) and splitting and joining store paths. Store paths
// are relative to the tree's root ("notes/a.md"); a leading or trailing '/' is
// accepted and ignored.
//
// Thread-safety: pure functions.
#ifndef VEXFS_PATHS_H_
#define VEXFS_PATHS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "vexfs/status.h"

// The public API: exported from libvexfs.so, which is built with hidden visibility.
#pragma GCC visibility push(default)

namespace vexfs {

// Reserved name of the working tree in diff arguments: no snapshot or branch
// may take it (ValidateRefName).
inline constexpr std::string_view kWorkingName = "WORKING";

// A file or directory name: 1..kMaxNameLength bytes, no '/', no NUL, not "." or "..".
Status ValidateFileName(std::string_view name);

// The name a mount gives its search and snapshot views at the root of the tree
// (docs/mount.md). No file may take it there, whichever front end writes: a
// mount would hide that file, and list the views instead.
inline constexpr std::string_view kReservedRootName = ".vexfs";
// ValidateFileName, and not kReservedRootName when `parent` is the root: the
// gate for every name a new entry takes.
Status ValidateNewEntryName(uint64_t parent, std::string_view name);

// Splits a store path ("a/b/c", "/a/b", "" for the root) into validated
// components. Rejects "..", "." and empty components with a message naming the
// path, so nothing can escape the tree.
Result<std::vector<std::string>> SplitStorePath(std::string_view path);

// A branch or snapshot name: 1..255 bytes of [A-Za-z0-9._-], not starting with '.'
// or '-', and not "WORKING". `what` names the kind in errors ("snapshot").
Status ValidateRefName(std::string_view name, std::string_view what);

struct ParentAndName {
  std::string parent;  // "" for the root
  std::string name;    // "" only for the root itself
};
// Validates `path` (as SplitStorePath) and splits off its last component.
Result<ParentAndName> SplitParent(std::string_view path);

// Validates `path` and writes it without leading or trailing slashes: "/a/b/" ->
// "a/b", "/" -> "".
Result<std::string> CanonicalPath(std::string_view path);

// "a/b" + "c" -> "a/b/c"; "" + "c" -> "c"; "a" + "" -> "a". Validates nothing.
std::string JoinPath(std::string_view dir, std::string_view name);

}  // namespace vexfs

#pragma GCC visibility pop

#endif  // VEXFS_PATHS_H_
