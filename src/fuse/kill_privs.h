// Which setuid and setgid bits survive a change to a file's content or size,
// by the kernel's rules: the mount asks the kernel to leave this to it
// (FUSE_CAP_HANDLE_KILLPRIV, libfuse's default), so the daemon must apply them
// on every write, truncate and fallocate.
#ifndef VEXFS_FUSE_KILL_PRIVS_H_
#define VEXFS_FUSE_KILL_PRIVS_H_

#include <cstdint>

#include "fuse/caller.h"
#include "vexfs/types.h"

namespace vexfs::fuse {

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
