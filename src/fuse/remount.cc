// Remount: new per-mount flags for a running VexFS mount (see vexfs/mount.h). The
// kernel changes them with mount(2) MS_REMOUNT | MS_BIND, which sets the whole
// set at once, so the current flags are read from the mount table and only the
// ones asked for change.
#include <sys/mount.h>

#include <cerrno>
#include <cstring>
#include <map>

#include "fuse/mount_table.h"
#include "vexfs/mount.h"

namespace vexfs::fuse {
namespace {

// Flags a bind remount can set, by the option that sets and the one that clears.
struct FlagOption {
  const char* set;
  const char* clear;
  unsigned long flag;
};
constexpr FlagOption kFlags[] = {
    {"ro", "rw", MS_RDONLY},           {"nosuid", "suid", MS_NOSUID},
    {"nodev", "dev", MS_NODEV},        {"noexec", "exec", MS_NOEXEC},
    {"nodiratime", "diratime", MS_NODIRATIME},
};
// The atime policy is one of three.
const std::map<std::string_view, unsigned long> kAtime = {
    {"noatime", MS_NOATIME}, {"relatime", MS_RELATIME}, {"strictatime", MS_STRICTATIME},
    {"atime", MS_RELATIME}, {"norelatime", MS_STRICTATIME}};  // atime: the kernel default

// `flags` after option `opt`; false if it is not a per-mount flag.
bool ApplyFlag(std::string_view opt, unsigned long* flags) {
  for (const FlagOption& f : kFlags) {
    if (opt == f.set || opt == f.clear) {
      *flags = opt == f.set ? *flags | f.flag : *flags & ~f.flag;
      return true;
    }
  }
  auto atime = kAtime.find(opt);
  if (atime == kAtime.end()) return false;
  *flags = (*flags & ~(MS_NOATIME | MS_RELATIME | MS_STRICTATIME)) | atime->second;
  return true;
}

unsigned long FlagsOf(std::string_view options) {
  unsigned long flags = MS_STRICTATIME;  // the table says relatime or noatime if not
  while (!options.empty()) {
    size_t comma = options.find(',');
    ApplyFlag(options.substr(0, comma), &flags);
    if (comma == std::string_view::npos) break;
    options.remove_prefix(comma + 1);
  }
  return flags;
}

// What the daemon was started with and a remount cannot change.
Status RefuseDaemonChanges(const MountOptions& o, const VexfsMount& mount,
                           const std::string& where) {
  bool served_read_only = HasOption(mount.super_options, "ro");
  if (o.read_only_given && !o.read_only && served_read_only) {
    return Status::NotSupported("'" + where + "' is served read-only; unmount it and mount " +
                                "again without ro to write");
  }
  if (o.allow_other_given != HasOption(mount.super_options, "allow_other")) {
    return Status::NotSupported("allow_other cannot change on remount of '" + where +
                                "'; unmount and mount again");
  }
  if (o.branch_given) {
    return Status::NotSupported("the branch of '" + where + "' cannot change on remount; " +
                                "unmount and mount the other branch");
  }
  return Status::Ok();
}

}  // namespace
}  // namespace vexfs::fuse

namespace vexfs {

using fuse::ApplyFlag;
using fuse::FlagsOf;
using fuse::RefuseDaemonChanges;
using fuse::ResolvedPath;
using fuse::VexfsMount;
using fuse::VexfsMountAt;

Status Remount(const MountOptions& o) {
  std::string where = ResolvedPath(o.mountpoint);
  std::optional<VexfsMount> mount = VexfsMountAt(where);
  if (!mount) return Status::NotFound("no VexFS mount at '" + where + "' to remount");
  if (!o.store_path.empty() && ResolvedPath(o.store_path) != ResolvedPath(mount->store)) {
    return Status::InvalidArgument("'" + where + "' serves the store '" + mount->store +
                                   "', not '" + o.store_path + "'");
  }
  VEXFS_RETURN_IF_ERROR(RefuseDaemonChanges(o, *mount, where));
  unsigned long flags = FlagsOf(mount->mount_options);
  if (o.read_only_given) flags = o.read_only ? flags | MS_RDONLY : flags & ~MS_RDONLY;
  for (const std::string& opt : o.passthrough) {
    if (!ApplyFlag(opt, &flags)) {
      return Status::NotSupported("'" + opt + "' cannot change on remount; unmount and " +
                                  "mount again");
    }
  }
  if (::mount(nullptr, where.c_str(), nullptr, MS_REMOUNT | MS_BIND | flags, nullptr) != 0) {
    int err = errno;
    std::string msg = "remount of '" + where + "': " + std::strerror(err);
    if (err == EPERM) return Status::PermissionDenied(msg + " (remounting needs root)");
    return Status::IOError(msg);
  }
  return Status::Ok();
}

}  // namespace vexfs
