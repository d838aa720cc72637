// Which setuid and setgid bits survive a change to a file's content or size,
// by the kernel's rules: the mount asks the kernel to leave this to it
// (FUSE_CAP_HANDLE_KILLPRIV, libfuse's default), so the daemon must apply them
// on every write, truncate and fallocate.
#ifndef VEXFS_FUSE_KILL_PRIVS_H_
#define VEXFS_FUSE_KILL_PRIVS_H_

#include <cstdint>
#include <functional>

#include "vexfs/types.h"

namespace vexfs::fuse {

// Who asks: new files belong to the caller.
struct Caller {
  uint32_t uid = 0;
  uint32_t gid = 0;
  // Whether the caller belongs to group `gid` beyond its own (its supplementary
  // groups); asked only where the answer matters, since finding out reads /proc.
  std::function<bool(uint32_t gid)> in_supplementary_group;

  bool InGroup(uint32_t group) const {
    return group == gid || (in_supplementary_group && in_supplementary_group(group));
  }
};

// The permission bits (07777) a regular file has after `caller` changes it
// (since Linux 6.2, should_remove_suid and setattr_should_drop_sgid): a caller
// without CAP_FSETID (anyone but root here) clears setuid; setgid goes too
// where group-execute is set (a setgid program), or where the caller is
// outside the file's group (a bit it could not have set itself). Root clears
// nothing; other file types keep their bits.
uint32_t ModeAfterChangeBy(const Attributes& file, const Caller& caller);

// Whether a file of this mode has bits a change could clear.
inline bool HasPrivBits(uint32_t mode) { return (mode & 06000) != 0; }

}  // namespace vexfs::fuse

#endif  // VEXFS_FUSE_KILL_PRIVS_H_
