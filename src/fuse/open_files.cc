// OpenFiles: the table of inodes with open handles (see open_files.h).
#include "fuse/open_files.h"

namespace vexfs::fuse {

std::shared_ptr<InodeState> OpenFiles::Acquire(uint64_t ino) {
  std::lock_guard lock(mu_);
  auto& state = states_[ino];
  if (!state) state = std::make_shared<InodeState>();
  state->handles++;
  return state;
}

bool OpenFiles::Release(uint64_t ino) {
  std::lock_guard lock(mu_);
  auto it = states_.find(ino);
  if (it == states_.end()) return false;
  if (--it->second->handles > 0) return false;
  states_.erase(it);
  return true;
}

std::shared_ptr<InodeState> OpenFiles::Find(uint64_t ino) const {
  std::lock_guard lock(mu_);
  auto it = states_.find(ino);
  return it == states_.end() ? nullptr : it->second;
}

std::vector<std::pair<uint64_t, std::shared_ptr<InodeState>>> OpenFiles::All() const {
  std::lock_guard lock(mu_);
  return {states_.begin(), states_.end()};
}

}  // namespace vexfs::fuse
