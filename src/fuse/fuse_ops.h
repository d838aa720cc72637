// The libfuse low-level operations table. Each operation forwards to Filesystem
// and replies exactly once; ErrnoOf is the one place a Status becomes an errno.
#ifndef VEXFS_FUSE_FUSE_OPS_H_
#define VEXFS_FUSE_FUSE_OPS_H_

#define FUSE_USE_VERSION 312
#include <fuse_lowlevel.h>

#include "fuse/filesystem.h"

namespace vexfs::fuse {

// What fuse_session_new's userdata points at.
struct MountState {
  Filesystem* fs = nullptr;
  // How long the kernel may cache names and attributes: changes made by other
  // processes (the CLI) show within this.
  double cache_seconds = 0.5;
  // The session, for telling the kernel what changed behind its back.
  fuse_session* session = nullptr;
};

// Tells the kernel to drop the attributes it caches of `ino`: the daemon
// changed them without a request that returns them (a mode a write cleared).
void ForgetCachedAttributes(MountState* state, uint64_t ino);

// The operation an errno is for: some map codes differently (a missing xattr
// is ENODATA, not ENOENT).
enum class OpKind { kGeneral, kXattr, kLink };

int ErrnoOf(const Status& status, OpKind kind = OpKind::kGeneral);

const fuse_lowlevel_ops& LowLevelOps();

}  // namespace vexfs::fuse

#endif  // VEXFS_FUSE_FUSE_OPS_H_
