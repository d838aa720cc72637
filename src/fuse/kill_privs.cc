// The kernel's rule for setuid and setgid bits after a write (kill_privs.h).
#include "fuse/kill_privs.h"

#include <sys/stat.h>

namespace vexfs::fuse {

uint32_t ModeAfterChangeBy(const Attributes& file, const Caller& caller) {
  if (file.type != FileType::kRegular || caller.uid == 0) return file.mode;
  uint32_t mode = file.mode & ~uint32_t{S_ISUID};
  if ((mode & S_ISGID) && ((mode & S_IXGRP) || !caller.InGroup(file.gid))) mode &= ~S_ISGID;
  return mode;
}

}  // namespace vexfs::fuse
