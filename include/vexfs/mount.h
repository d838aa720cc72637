// Mounting a store as a POSIX file system through FUSE: option parsing, the
// daemon's life (start, serve, clean shutdown on unmount or SIGINT/SIGTERM/SIGHUP),
// remounting with other flags, and unmounting. docs/mount.md describes what the
// mount supports and refuses.
//
// Thread-safety: free functions. Mount() forks a daemon unless asked to serve in
// the foreground, so call it before the process starts threads of its own.
#ifndef VEXFS_MOUNT_H_
#define VEXFS_MOUNT_H_

#include <string>
#include <string_view>
#include <vector>

#include "vexfs/status.h"

// The public API: exported from libvexfs.so, which is built with hidden visibility.
#pragma GCC visibility push(default)

namespace vexfs {

struct MountOptions {
  std::string store_path;
  std::string mountpoint;
  std::string branch;       // "" = the store's current branch
  bool foreground = false;  // serve in this process instead of a daemon
  bool read_only = false;
  bool allow_other = false;  // other users may use the mount (needs root or user_allow_other)
  bool debug = false;        // libfuse's request trace on stderr (implies foreground)
  std::vector<std::string> passthrough;  // nosuid, nodev, noexec, noatime, ...
  bool remount = false;           // -o remount: change a running mount's flags
  bool read_only_given = false;   // ro or rw was said (remount keeps the current one if not)
  bool allow_other_given = false;
  bool branch_given = false;
};

// Applies one -o list ("ro,allow_other,branch=b"). Knows ro/rw, allow_other,
// default_permissions (always on), branch=NAME, the options libfuse passes on to
// the kernel, and ignores mount(8)'s own (defaults, auto, noauto, user, users,
// nouser, _netdev, nofail) so fstab lines work. kInvalidArgument names anything else.
Status ApplyMountOptionList(std::string_view list, MountOptions* options);

// Mounts and serves until the mount goes away. In the foreground it returns
// when serving ends; otherwise it returns as soon as the mount is ready (or has
// failed, with the reason) and a daemon process serves it. With
// options.remount it is Remount(options). Errors: the store's when it cannot be
// opened (kNotFound for no store at store_path or no such branch, kCorruption,
// kReadOnly), kBusy when the branch is mounted writable already, kIOError when
// FUSE refuses the mountpoint or the daemon cannot start (the message says why).
Status Mount(const MountOptions& options);

// -o remount, as mount(8) asks a helper: changes the per-mount flags of the
// running VexFS mount at options.mountpoint (ro/rw, nosuid/suid, nodev/dev,
// noexec/exec, the atime options) without restarting its daemon. What the
// daemon was started with cannot change: rw on a daemon serving read-only,
// another branch, or allow_other on or off are refused (kNotSupported).
Status Remount(const MountOptions& options);

// Unmounts through fusermount3 (works for non-root users and for a mount whose
// daemon died), then waits (up to a minute) until the daemon has let go of its
// branch, so a mount straight after succeeds. kIOError when fusermount3 cannot
// be run, kInvalidArgument when it refuses (not a mount, busy: its message is on
// stderr), kBusy when the daemon still holds the branch after the wait.
Status Unmount(const std::string& mountpoint);

}  // namespace vexfs

#pragma GCC visibility pop

#endif  // VEXFS_MOUNT_H_
