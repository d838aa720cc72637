// Name and path validation: the one gate every user-supplied name passes.
#include "vexfs/paths.h"

#include "vexfs/types.h"

namespace vexfs {

Status ValidateFileName(std::string_view name) {
  std::string shown(name.substr(0, 64));
  if (name.empty()) return Status::InvalidArgument("empty file name");
  if (name.size() > kMaxNameLength) {
    return Status::NameTooLong("name '" + shown + "...' is " +
                               std::to_string(name.size()) + " bytes; the limit is " +
                               std::to_string(kMaxNameLength));
  }
  if (name == "." || name == "..") {
    return Status::InvalidArgument("name '" + shown + "' is not allowed");
  }
  if (name.find('/') != std::string_view::npos) {
    return Status::InvalidArgument("name '" + shown + "' contains '/'");
  }
  if (name.find('\0') != std::string_view::npos) {
    return Status::InvalidArgument("name '" + shown + "' contains a NUL byte");
  }
  return Status::Ok();
}

Status ValidateNewEntryName(uint64_t parent, std::string_view name) {
  VEXFS_RETURN_IF_ERROR(ValidateFileName(name));
  if (parent == kRootIno && name == kReservedRootName) {
    return Status::InvalidArgument(
        "'.vexfs' at the root is reserved for a mount's search and snapshot views; "
        "choose another name");
  }
  return Status::Ok();
}

Result<std::vector<std::string>> SplitStorePath(std::string_view path) {
  std::vector<std::string> parts;
  std::string_view rest = path;
  while (!rest.empty() && rest.front() == '/') rest.remove_prefix(1);
  while (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  while (!rest.empty()) {
    size_t slash = rest.find('/');
    std::string_view part = rest.substr(0, slash);
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
    if (part.empty() || part == ".") {
      return Status::InvalidArgument("path '" + std::string(path) +
                                     "' has an empty or '.' component");
    }
    if (part == "..") {
      return Status::InvalidArgument("path '" + std::string(path) +
                                     "' uses '..', which could escape the store root");
    }
    VEXFS_RETURN_IF_ERROR(ValidateFileName(part).WithContext("path '" + std::string(path) + "'"));
    parts.emplace_back(part);
  }
  return parts;
}

Status ValidateRefName(std::string_view name, std::string_view what) {
  std::string shown(name.substr(0, 64));
  std::string kind(what);
  if (name.empty()) return Status::InvalidArgument(kind + " name is empty");
  if (name.size() > kMaxNameLength) {
    return Status::NameTooLong(kind + " name '" + shown + "...' is longer than 255 bytes");
  }
  if (name.front() == '.' || name.front() == '-') {
    return Status::InvalidArgument(kind + " name '" + shown +
                                   "' must not start with '.' or '-'");
  }
  if (name == kWorkingName) {
    return Status::InvalidArgument(kind + " name 'WORKING' is reserved for the working tree");
  }
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-';
    if (!ok) {
      return Status::InvalidArgument(kind + " name '" + shown +
                                     "' may only hold letters, digits, '.', '_' and '-'");
    }
  }
  return Status::Ok();
}

Result<ParentAndName> SplitParent(std::string_view path) {
  VEXFS_ASSIGN_OR_RETURN(auto parts, SplitStorePath(path));
  ParentAndName out;
  if (parts.empty()) return out;
  out.name = std::move(parts.back());
  parts.pop_back();
  for (const std::string& p : parts) out.parent = JoinPath(out.parent, p);
  return out;
}

Result<std::string> CanonicalPath(std::string_view path) {
  VEXFS_ASSIGN_OR_RETURN(auto parts, SplitStorePath(path));
  std::string out;
  for (const std::string& p : parts) out = JoinPath(out, p);
  return out;
}

std::string JoinPath(std::string_view dir, std::string_view name) {
  if (dir.empty()) return std::string(name);
  if (name.empty()) return std::string(dir);
  std::string out;
  out.reserve(dir.size() + 1 + name.size());
  out.append(dir).append("/").append(name);
  return out;
}

}  // namespace vexfs
