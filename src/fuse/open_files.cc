// OpenFiles: the table of inodes with open handles (see open_files.h).
#include "fuse/open_files.h"

namespace vexfs::fuse {

std::shared_ptr<OpenInode> OpenFiles::Acquire(uint64_t ino) {
  std::lock_guard lock(mu_);
  auto& inode = inodes_[ino];
  if (!inode) inode = std::make_shared<OpenInode>(ino, context_);
  inode->handles_++;
  return inode;
}

bool OpenFiles::Release(uint64_t ino) {
  std::lock_guard lock(mu_);
  auto it = inodes_.find(ino);
  if (it == inodes_.end()) return false;
  if (--it->second->handles_ > 0) return false;
  inodes_.erase(it);
  return true;
}

std::shared_ptr<OpenInode> OpenFiles::Find(uint64_t ino) const {
  std::lock_guard lock(mu_);
  auto it = inodes_.find(ino);
  return it == inodes_.end() ? nullptr : it->second;
}

std::vector<std::pair<uint64_t, std::shared_ptr<OpenInode>>> OpenFiles::All() const {
  std::lock_guard lock(mu_);
  return {inodes_.begin(), inodes_.end()};
}

}  // namespace vexfs::fuse
