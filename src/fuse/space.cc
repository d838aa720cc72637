// Filesystem's free space: statfs, and the room an allocation is checked against.
#include <sys/statvfs.h>

#include <algorithm>

#include "fuse/filesystem.h"

namespace vexfs::fuse {

// An allocation promises that writes into its range will not fail for space.
// Zeros are stored as holes, so nothing is reserved; but a promise the store
// could not keep at all is refused now, as ext4 does, rather than granted and
// broken by the first write: the bytes past the file's end against the free
// space statfs reports.
Status Filesystem::CheckRoom(uint64_t size, uint64_t end, uint64_t free_bytes) {
  if (end <= size || end - size <= free_bytes) return Status::Ok();
  return Status::NoSpace("fallocate of " + std::to_string(end - size) +
                         " bytes past the end with " + std::to_string(free_bytes) + " free");
}

// The store's free space: what is left of its map, and of the disk under it.
Result<uint64_t> Filesystem::FreeBytes() {
  VEXFS_ASSIGN_OR_RETURN(StoreStats stats, store_->Stats());
  uint64_t free_bytes = stats.map_size > stats.map_used ? stats.map_size - stats.map_used : 0;
  struct statvfs disk {};
  if (::statvfs(store_->path().c_str(), &disk) == 0) {
    free_bytes = std::min<uint64_t>(free_bytes, uint64_t{disk.f_bavail} * disk.f_frsize);
  }
  return free_bytes;
}

Result<struct statvfs> Filesystem::StatFs() {
  VEXFS_ASSIGN_OR_RETURN(StoreStats stats, store_->Stats());
  VEXFS_ASSIGN_OR_RETURN(uint64_t free_bytes, FreeBytes());
  struct statvfs out {};
  const uint64_t block = 4096;
  out.f_bsize = block;
  out.f_frsize = block;
  out.f_blocks = stats.map_size / block;
  out.f_bfree = free_bytes / block;
  out.f_bavail = out.f_bfree;
  out.f_files = uint64_t{1} << 32;  // inodes are not a limited resource
  out.f_ffree = out.f_files;
  out.f_favail = out.f_files;
  out.f_namemax = kMaxNameLength;
  return out;
}

}  // namespace vexfs::fuse
