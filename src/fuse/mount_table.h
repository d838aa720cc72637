// Reading the kernel's table of this process's mounts (/proc/self/mountinfo):
// which VexFS store, if any, is mounted at a path.
#ifndef VEXFS_FUSE_MOUNT_TABLE_H_
#define VEXFS_FUSE_MOUNT_TABLE_H_

#include <optional>
#include <string>
#include <string_view>

namespace vexfs::fuse {

// The store path of the VexFS mount at `mountpoint` (an absolute, resolved
// path), or nothing if no VexFS mount is there. The last mount on a path wins.
std::optional<std::string> VexfsStoreMountedAt(const std::string& mountpoint);

// The same, from the text of a mountinfo file (for tests).
std::optional<std::string> VexfsStoreMountedAt(std::string_view mountinfo,
                                               const std::string& mountpoint);

}  // namespace vexfs::fuse

#endif  // VEXFS_FUSE_MOUNT_TABLE_H_
