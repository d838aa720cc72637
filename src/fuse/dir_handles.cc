// Filesystem's directories: listings, and the handles readdir serves them from.
#include <sys/stat.h>

#include "fuse/filesystem.h"
#include "fuse/virtual_tree.h"

namespace vexfs::fuse {

Result<std::vector<DirItem>> Filesystem::ListDir(uint64_t ino) {
  std::vector<DirItem> items{{".", ino, FileType::kDirectory}, {"..", ino, FileType::kDirectory}};
  if (IsVirtualIno(ino)) {
    VEXFS_ASSIGN_OR_RETURN(std::vector<DirItem> listed, virtual_tree_->List(ino));
    items.insert(items.end(), listed.begin(), listed.end());
    return items;
  }
  VEXFS_RETURN_IF_ERROR(View([&](TreeEditor& ed) -> Status {
    VEXFS_ASSIGN_OR_RETURN(auto entries, ed.ListNames(ino));
    items.reserve(items.size() + entries.size());
    for (auto& e : entries) items.push_back({std::move(e.name), e.ino, e.type});
    return Status::Ok();
  }));
  return items;
}

Result<uint64_t> Filesystem::OpenDir(uint64_t ino) {
  VEXFS_ASSIGN_OR_RETURN(Attributes attr, GetAttr(ino));
  if (attr.type != FileType::kDirectory) return Status::NotDirectory("not a directory");
  std::lock_guard handles(handles_mu_);
  uint64_t fh = next_handle_++;
  dir_handles_[fh] = DirHandle{ino, false, {}, attr};
  return fh;
}

std::optional<Attributes> Filesystem::RemovedOpenDir(uint64_t ino) {
  std::lock_guard handles(handles_mu_);
  for (const auto& [fh, dir] : dir_handles_) {
    if (dir.ino != ino) continue;
    Attributes attr = dir.attr;
    attr.nlink = 0;
    return attr;
  }
  return std::nullopt;
}

Result<std::vector<DirItem>*> Filesystem::DirListing(uint64_t fh, uint64_t offset) {
  std::unique_lock handles(handles_mu_);
  auto it = dir_handles_.find(fh);
  if (it == dir_handles_.end()) return Status::InvalidArgument("unknown directory handle");
  // Listed at each read from the start: the first after opendir and each after
  // a rewinddir, so entries made in between show.
  if (offset != 0 && it->second.listed) return &it->second.items;
  uint64_t ino = it->second.ino;
  handles.unlock();  // listing reads the store
  auto items = ListDir(ino);
  // A directory removed while open reads as empty, as on other file systems.
  if (!items.ok() && items.status().code() == StatusCode::kNotFound) items = std::vector<DirItem>{};
  VEXFS_RETURN_IF_ERROR(items.status());
  handles.lock();
  it = dir_handles_.find(fh);
  if (it == dir_handles_.end()) return Status::InvalidArgument("unknown directory handle");
  it->second.items = std::move(items).value();
  it->second.listed = true;
  return &it->second.items;
}

Status Filesystem::ReleaseDir(uint64_t fh) {
  std::lock_guard handles(handles_mu_);
  dir_handles_.erase(fh);
  return Status::Ok();
}

}  // namespace vexfs::fuse
