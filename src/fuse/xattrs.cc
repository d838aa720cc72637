// Filesystem's extended attributes: the user.* ones are stored, the index's are views.
#include <sys/xattr.h>

#include "fuse/filesystem.h"
#include "fuse/virtual_tree.h"

namespace vexfs::fuse {

// The only namespace whose xattrs are stored.
inline constexpr std::string_view kUserXattrPrefix = "user.";

static bool IsStoredXattrName(std::string_view name) {
  return name.substr(0, kUserXattrPrefix.size()) == kUserXattrPrefix;
}

static Status CheckWritableXattr(std::string_view name) {
  if (!IsStoredXattrName(name)) return Status::NotSupported("only user.* xattrs are stored");
  return Status::Ok();
}

Status Filesystem::SetXattr(uint64_t ino, std::string_view name, std::string_view value,
                            XattrMode mode) {
  VEXFS_RETURN_IF_ERROR(RefuseIfReadOnly(ino));
  VEXFS_RETURN_IF_ERROR(CheckWritableXattr(name));
  if (IsIndexXattr(name)) return SetIndexXattr(ino, name, value);
  return Edit([&](TreeEditor& ed) -> Status {
    if (mode != XattrMode::kAny) {
      auto existing = ed.GetXattr(ino, name);
      if (!existing.ok() && !existing.status().IsNotFound()) return existing.status();
      if (mode == XattrMode::kCreate && existing.ok()) {
        return Status::AlreadyExists("xattr '" + std::string(name) + "' exists");
      }
      if (mode == XattrMode::kReplace && !existing.ok()) return existing.status();
    }
    return ed.SetXattr(ino, name, value);
  });
}

Result<std::string> Filesystem::GetXattr(uint64_t ino, std::string_view name) {
  if (IsVirtualIno(ino)) {
    VEXFS_ASSIGN_OR_RETURN(XattrMap all, virtual_tree_->Xattrs(ino));
    auto it = all.find(std::string(name));
    if (it == all.end()) return Status::NotFound("xattr '" + std::string(name) + "' not set");
    return it->second;
  }
  if (IsIndexXattr(name)) return GetIndexXattr(ino, name);
  // Only user.* names are ever stored. The kernel asks for security.capability
  // before every write to a file (to drop it), so this answer must not cost a
  // read transaction.
  if (!IsStoredXattrName(name)) return Status::NotFound("xattr '" + std::string(name) + "' not set");
  std::string value;
  VEXFS_RETURN_IF_ERROR(View([&](TreeEditor& ed) -> Status {
    VEXFS_ASSIGN_OR_RETURN(value, ed.GetXattr(ino, name));
    return Status::Ok();
  }));
  return value;
}

Result<std::vector<std::string>> Filesystem::ListXattrs(uint64_t ino) {
  XattrMap all;
  if (IsVirtualIno(ino)) {
    VEXFS_ASSIGN_OR_RETURN(all, virtual_tree_->Xattrs(ino));
  } else {
    VEXFS_RETURN_IF_ERROR(View([&](TreeEditor& ed) -> Status {
      VEXFS_ASSIGN_OR_RETURN(all, ed.ListXattrs(ino));
      return Status::Ok();
    }));
  }
  // The index's xattrs (user.vexfs.passages, user.vexfs.embedding.*) are read by
  // name and never listed: cp -a, rsync -X and tar would copy them as if the
  // agent had set them (docs/mount.md).
  std::vector<std::string> names;
  for (const auto& [name, value] : all) names.push_back(name);
  return names;
}

Status Filesystem::RemoveXattr(uint64_t ino, std::string_view name) {
  VEXFS_RETURN_IF_ERROR(RefuseIfReadOnly(ino));
  if (IsIndexXattr(name)) return Status::NotSupported("vectors cannot be removed, only replaced");
  return Edit([&](TreeEditor& ed) { return ed.RemoveXattr(ino, name); });
}

}  // namespace vexfs::fuse
