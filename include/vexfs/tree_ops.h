// Path-level changes of a working tree that every front end offers (the CLI's
// mkdir, rm and mv, the MCP server's tools): each runs inside the caller's
// TreeEditor, so it is one transaction with whatever else the edit does. Errors
// name the path and what is wrong with it.
#ifndef VEXFS_TREE_OPS_H_
#define VEXFS_TREE_OPS_H_

#include <cstdint>
#include <string_view>

#include "vexfs/status.h"
#include "vexfs/store.h"

// The public API: exported from libvexfs.so, which is built with hidden visibility.
#pragma GCC visibility push(default)

namespace vexfs {

// A new file's or directory's owner and permission bits as every front end
// makes them: the calling process's effective user and group, and `mode`.
TreeEditor::NewNode CallerOwnedNode(uint32_t mode);

// The directory that will hold `path` (kNotFound naming it if it is missing).
Result<uint64_t> ResolveParentDir(TreeEditor& editor, std::string_view path);

// mkdir, or with `parents` mkdir -p (no error if the directory exists).
Status MakeDirectory(TreeEditor& editor, std::string_view path, bool parents,
                     const TreeEditor::NewNode& node);

// Removes a file, symlink or special file; a directory only with `recursive`
// (all it holds goes too). kIsDirectory for a directory without it.
Status RemovePath(TreeEditor& editor, std::string_view path, bool recursive);
// Removes an empty directory (kNotEmpty otherwise).
Status RemoveEmptyDirectory(TreeEditor& editor, std::string_view path);

// Like mv: renames `from` to `to`, or moves it into `to` when that is an
// existing directory. An existing file at the destination is replaced only with
// `replace` (kAlreadyExists otherwise). `moved_to`, if given, receives the
// path it has now (canonical: "d/x.md" for a move of "a/x.md" into "d").
Status MovePath(TreeEditor& editor, std::string_view from, std::string_view to, bool replace,
                std::string* moved_to = nullptr);

}  // namespace vexfs

#pragma GCC visibility pop

#endif  // VEXFS_TREE_OPS_H_
