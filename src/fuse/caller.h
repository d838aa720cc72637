// Who asks the mount for something: the user and groups of the process behind a
// request, which own what it creates and decide which setuid/setgid bits its
// changes clear.
#ifndef VEXFS_FUSE_CALLER_H_
#define VEXFS_FUSE_CALLER_H_

#include <cstdint>
#include <functional>

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

}  // namespace vexfs::fuse

#endif  // VEXFS_FUSE_CALLER_H_
