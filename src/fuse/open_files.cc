// OpenFiles: the table of inodes with open handles (see open_files.h).
#include "fuse/open_files.h"

#include <algorithm>

namespace vexfs::fuse {

uint64_t InodeState::SizeOver(uint64_t store_size) const {
  uint64_t size = store_size;
  if (buffer) size = std::max(size, buffer->end());
  if (behind) size = std::max(size, behind->end());
  return size;
}

std::string InodeState::Overlay(uint64_t offset, uint64_t length, std::string_view stored,
                                uint64_t size) const {
  if (!behind) return buffer->Overlay(offset, length, stored, size);
  return buffer->Overlay(offset, length, behind->Overlay(offset, length, stored, size), size);
}

uint64_t InodeState::BufferedBytes() const {
  return (buffer ? buffer->bytes() : 0) + (behind ? behind->bytes() : 0);
}

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
