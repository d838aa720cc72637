// Reading the kernel's table of this process's mounts (/proc/self/mountinfo):
// which VexFS store, if any, is mounted at a path.
#ifndef VEXFS_FUSE_MOUNT_TABLE_H_
#define VEXFS_FUSE_MOUNT_TABLE_H_

#include <optional>
#include <string>
#include <string_view>

namespace vexfs::fuse {

// One VexFS mount as the kernel lists it.
struct VexfsMount {
  std::string store;          // the store path (the mount's source, after "vexfs:")
  std::string mount_options;  // per-mount flags: "rw,nosuid,nodev,relatime"
  std::string super_options;  // the file system's: "rw,user_id=0,...,allow_other"
};

// The VexFS mount at `mountpoint` (an absolute, resolved path), or nothing if
// no VexFS mount is there. The last mount on a path wins.
std::optional<VexfsMount> VexfsMountAt(const std::string& mountpoint);
// The same, from the text of a mountinfo file (for tests).
std::optional<VexfsMount> VexfsMountAt(std::string_view mountinfo,
                                       const std::string& mountpoint);

// The store of the VexFS mount at `mountpoint`, if there is one.
std::optional<std::string> VexfsStoreMountedAt(const std::string& mountpoint);
std::optional<std::string> VexfsStoreMountedAt(std::string_view mountinfo,
                                               const std::string& mountpoint);

// `path` with symlinks resolved, as the mount table shows it (as given if it
// cannot be resolved).
std::string ResolvedPath(const std::string& path);

// Whether comma-separated `options` contain `option` exactly.
bool HasOption(std::string_view options, std::string_view option);

}  // namespace vexfs::fuse

#endif  // VEXFS_FUSE_MOUNT_TABLE_H_
