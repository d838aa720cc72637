// Mount / Unmount (vexfs/mount.h): the daemon around Filesystem and the FUSE session.
#include "vexfs/mount.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "common/file_util.h"
#include "fuse/filesystem.h"
#include "fuse/fuse_ops.h"
#include "fuse/mount_lock.h"
#include "fuse/mount_table.h"
#include "vexfs/db.h"
#include "vexfs/index.h"
#include "vexfs/store.h"

namespace vexfs::fuse {
namespace {

// How long `vexfs umount` waits for the daemon to let go of its branch.
constexpr std::chrono::milliseconds kDaemonExitWait{60000};

// Options the kernel or libfuse take as they are.
const std::set<std::string_view> kPassedThrough = {
    "nosuid",   "suid",       "nodev",       "dev",        "noexec",  "exec", "noatime", "atime",
    "relatime", "norelatime", "strictatime", "nodiratime", "dirsync", "sync", "async"};
// mount(8)'s own options, which reach a helper but mean nothing to the mount.
const std::set<std::string_view> kIgnored = {
    "defaults", "auto",    "noauto", "user",  "users",
    "nouser",   "_netdev", "nofail", "owner", "default_permissions"};

// About once a second: hands buffers that have waited too long to the
// background writer, then syncs the store if there is unsynced work.
class Syncer {
 public:
  explicit Syncer(Filesystem* fs) : fs_(fs), thread_([this] { Run(); }) {}
  ~Syncer() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  void Run() {
    std::unique_lock lock(mu_);
    while (!cv_.wait_for(lock, std::chrono::seconds(1), [this] { return stop_; })) {
      lock.unlock();
      fs_->WriteOutAged();
      Status st = fs_->SyncIfDirty();
      if (!st.ok()) std::fprintf(stderr, "vexfs mount: %s\n", st.ToString().c_str());
      lock.lock();
    }
  }

  Filesystem* fs_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

std::string FuseOptionString(const MountOptions& o) {
  std::string opts = "fsname=vexfs:" + o.store_path + ",subtype=vexfs,default_permissions";
  if (o.allow_other) opts += ",allow_other";
  if (o.read_only) opts += ",ro";
  for (const std::string& p : o.passthrough) opts += "," + p;
  return opts;
}

// A FUSE session mounted at `mountpoint`, serving `state`; unmounted and
// destroyed with the object.
class FuseSession {
 public:
  ~FuseSession() {
    if (!se_) return;
    if (signals_) fuse_remove_signal_handlers(se_);
    if (mounted_) fuse_session_unmount(se_);
    fuse_session_destroy(se_);
  }

  Status Mount(const MountOptions& o, MountState* state) {
    std::string opts = FuseOptionString(o);
    std::vector<const char*> argv = {"vexfs", "-o", opts.c_str()};
    if (o.debug) argv.push_back("-d");
    fuse_args args = FUSE_ARGS_INIT(static_cast<int>(argv.size()), const_cast<char**>(argv.data()));
    se_ = fuse_session_new(&args, &LowLevelOps(), sizeof(fuse_lowlevel_ops), state);
    fuse_opt_free_args(&args);  // parsing may have grown them onto the heap
    if (!se_) return Status::InvalidArgument("libfuse refused the options '" + opts + "'");
    state->session = se_;
    if (fuse_set_signal_handlers(se_) != 0) return Status::IOError("cannot set signal handlers");
    signals_ = true;
    if (fuse_session_mount(se_, o.mountpoint.c_str()) != 0) {
      return Status::IOError("cannot mount on '" + o.mountpoint +
                             "' (is it an existing directory, and is /dev/fuse usable?)");
    }
    mounted_ = true;
    return Status::Ok();
  }

  Status Serve() {
    fuse_loop_config* config = fuse_loop_cfg_create();
    fuse_loop_cfg_set_max_threads(config, 16);
    fuse_loop_cfg_set_idle_threads(config, 4);
    int rc = fuse_session_loop_mt(se_, config);
    fuse_loop_cfg_destroy(config);
    // A signal ends the loop with its number; that is a clean shutdown too.
    return rc < 0 ? Status::IOError(std::string("FUSE loop failed: ") + std::strerror(-rc))
                  : Status::Ok();
  }

 private:
  fuse_session* se_ = nullptr;
  bool signals_ = false;
  bool mounted_ = false;
};

// Everything a mount needs, opened in the process that serves it (a Store must
// not cross fork()). Calls `ready` once the mount is up, with ok or the reason
// it failed.
Status Serve(const MountOptions& o, const std::function<void(const Status&)>& ready) {
  DbOptions db_options = DefaultDbOptions();
  db_options.read_only = o.read_only;
  db_options.sync_on_commit = false;  // fsync and the syncer sync (docs/mount.md)
  auto fail = [&](const Status& st) {
    ready(st);
    return st;
  };
  auto db = Db::Open(o.store_path, db_options);
  if (!db.ok()) return fail(db.status());
  Store* store = &(*db)->store();
  auto index = (*db)->index();
  if (!index.ok()) return fail(index.status());
  FilesystemOptions fs_options;
  fs_options.branch = o.branch;
  fs_options.graph = &(*db)->graph();
  std::unique_ptr<MountLock> lock;
  if (!o.read_only) {
    auto tree = store->Tree(o.branch);
    if (!tree.ok()) return fail(tree.status());
    fs_options.branch = (*tree)->branch();  // the lock names the branch, not ""
    auto locked =
        MountLock::Acquire(o.store_path, fs_options.branch, ResolvedPath(o.mountpoint));
    if (!locked.ok()) return fail(locked.status());
    lock = std::move(*locked);
  }
  fs_options.read_only = o.read_only;
  auto fs = Filesystem::Create(store, *index, fs_options);
  if (!fs.ok()) return fail(fs.status());
  MountState state{fs->get(), 0.5};
  (*fs)->OnModeCleared([&state](uint64_t ino) { ForgetCachedAttributes(&state, ino); });
  FuseSession session;
  Status st = session.Mount(o, &state);
  if (!st.ok()) return fail(st);
  Status served;
  {
    Syncer syncer(fs->get());
    ready(Status::Ok());
    served = session.Serve();
  }
  Status flushed = (*fs)->FlushAll();
  return served.ok() ? flushed : served;
}

// True if `inner` is `outer` or lies below it (both resolved).
bool AtOrBelow(const std::string& inner, const std::string& outer) {
  if (inner.compare(0, outer.size(), outer) != 0) return false;
  return inner.size() == outer.size() || outer == "/" || inner[outer.size()] == '/';
}

// A mount at or above the store hides the store from its own daemon, whose
// every access to it would then wait on itself; one inside the store hides the
// store's own directories (the index, the mount locks) the same way.
Status RefuseMountOverStore(const MountOptions& o) {
  std::error_code ec;
  if (!std::filesystem::is_directory(o.store_path, ec)) return Status::Ok();  // Open says so
  const std::string store = ResolvedPath(o.store_path);
  const std::string at = ResolvedPath(o.mountpoint);
  if (AtOrBelow(store, at)) {
    return Status::InvalidArgument("cannot mount on '" + o.mountpoint + "': the store '" +
                                   o.store_path +
                                   "' is there, and the mount would hide it from its own daemon; "
                                   "mount on a directory outside the store");
  }
  if (AtOrBelow(at, store)) {
    return Status::InvalidArgument("cannot mount on '" + o.mountpoint +
                                   "': it is inside the store '" + o.store_path +
                                   "'; mount on a directory outside the store");
  }
  return Status::Ok();
}

// Detached child: report readiness through `fd`, then serve with stdio closed
// and errors appended to <store>/mount.log.
[[noreturn]] void RunDaemon(const MountOptions& o, int fd) {
  ::setsid();
  bool serving = false;  // a failure before that is the parent's to print
  Status st = Serve(o, [&](const Status& ready) {
    std::string msg =
        ready.ok() ? "ok" : std::to_string(static_cast<int>(ready.code())) + "\t" + ready.message();
    (void)!::write(fd, msg.data(), msg.size());
    ::close(fd);
    if (!ready.ok()) return;
    serving = true;
    int devnull = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    int log = ::open((o.store_path + "/mount.log").c_str(),
                     O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    ::dup2(devnull, 0);
    ::dup2(devnull, 1);
    ::dup2(log >= 0 ? log : devnull, 2);
    if (devnull > 2) ::close(devnull);
    if (log > 2) ::close(log);
  });
  // Into mount.log: the parent has returned by now.
  if (!st.ok() && serving) std::fprintf(stderr, "vexfs mount: %s\n", st.ToString().c_str());
  std::_Exit(st.ok() ? 0 : 1);
}

// What `fusermount3 -u` said (in the C locale, so its reasons can be told
// apart) and its exit code.
struct FusermountRun {
  std::string err;
  int exit_code = 0;
};

Status RunFusermountUnmount(const std::string& mountpoint, FusermountRun* run) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return ErrnoStatus("pipe");
  pid_t child = ::fork();
  if (child < 0) return ErrnoStatus("fork");
  if (child == 0) {
    ::dup2(fds[1], 2);  // dup2 clears close-on-exec on the copy
    ::setenv("LC_ALL", "C", 1);
    ::execlp("fusermount3", "fusermount3", "-u", "--", mountpoint.c_str(), nullptr);
    std::_Exit(127);
  }
  ::close(fds[1]);
  char buf[512];
  ssize_t n;
  while ((n = ::read(fds[0], buf, sizeof(buf))) > 0) run->err.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  int wstatus = 0;
  if (::waitpid(child, &wstatus, 0) < 0) return ErrnoStatus("wait for fusermount3");
  if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) == 127) {
    return Status::IOError("could not run fusermount3 (is the fuse3 package installed?)");
  }
  run->exit_code = WEXITSTATUS(wstatus);
  return Status::Ok();
}

// Reads the child's one message; its status decides the parent's.
Status AwaitDaemon(int fd, pid_t child) {
  std::string msg;
  char buf[512];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof(buf))) > 0) msg.append(buf, static_cast<size_t>(n));
  ::close(fd);
  if (msg == "ok") return Status::Ok();
  int wstatus = 0;
  ::waitpid(child, &wstatus, 0);
  size_t tab = msg.find('\t');
  if (tab == std::string::npos) {
    return Status::IOError("the mount daemon died before the mount was ready");
  }
  // The child sent "<code>\t<message>": the parent fails the same way.
  return Status(static_cast<StatusCode>(std::atoi(msg.substr(0, tab).c_str())),
                msg.substr(tab + 1));
}

}  // namespace
}  // namespace vexfs::fuse

namespace vexfs {

using fuse::AwaitDaemon;
using fuse::FusermountRun;
using fuse::RunFusermountUnmount;
using fuse::kDaemonExitWait;
using fuse::kIgnored;
using fuse::kPassedThrough;
using fuse::MountLock;
using fuse::RefuseMountOverStore;
using fuse::ResolvedPath;
using fuse::RunDaemon;
using fuse::Serve;
using fuse::VexfsStoreMountedAt;

Status ApplyMountOptionList(std::string_view list, MountOptions* options) {
  while (!list.empty()) {
    size_t comma = list.find(',');
    std::string_view opt = list.substr(0, comma);
    list = comma == std::string_view::npos ? "" : list.substr(comma + 1);
    if (opt.empty() || kIgnored.count(opt)) continue;
    if (opt == "ro" || opt == "rw") {
      options->read_only = opt == "ro";
      options->read_only_given = true;
    } else if (opt == "remount") {
      options->remount = true;
    } else if (opt == "allow_other") {
      options->allow_other = true;
      options->allow_other_given = true;
    } else if (opt.substr(0, 7) == "branch=") {
      options->branch = std::string(opt.substr(7));
      options->branch_given = true;
    } else if (kPassedThrough.count(opt)) {
      options->passthrough.emplace_back(opt);
    } else {
      return Status::InvalidArgument("unknown mount option '" + std::string(opt) + "'");
    }
  }
  return Status::Ok();
}

Status Mount(const MountOptions& given) {
  if (given.remount) return Remount(given);
  // The daemon reaches its store by the resolved path: one through a symlink
  // could lead back through the mount itself, where the check below cannot see.
  MountOptions options = given;
  options.store_path = ResolvedPath(given.store_path);
  VEXFS_RETURN_IF_ERROR(RefuseMountOverStore(options));
  if (options.foreground || options.debug) {
    return Serve(options, [](const Status&) {});
  }
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return ErrnoStatus("pipe");
  pid_t child = ::fork();
  if (child < 0) return ErrnoStatus("fork");
  if (child == 0) {
    ::close(fds[0]);
    RunDaemon(options, fds[1]);
  }
  ::close(fds[1]);
  return AwaitDaemon(fds[0], child);
}

Status Unmount(const std::string& mountpoint) {
  // Which store is served there, found before the mount goes away.
  std::string resolved = ResolvedPath(mountpoint);
  std::optional<std::string> store = VexfsStoreMountedAt(resolved);
  FusermountRun run;
  VEXFS_RETURN_IF_ERROR(RunFusermountUnmount(mountpoint, &run));
  std::fputs(run.err.c_str(), stderr);  // its own words, for the user
  if (run.exit_code != 0) {
    // EBUSY: a process has a file or its working directory in the mount.
    if (run.err.find("Device or resource busy") != std::string::npos) {
      return Status::Busy("'" + mountpoint +
                          "' is in use (see above): close what is open there, "
                          "or detach it at once with 'fusermount3 -uz'");
    }
    return Status::InvalidArgument("'" + mountpoint + "' could not be unmounted (see above)");
  }
  // The daemon is still flushing and closing; the branch is free once it exits.
  if (store) return MountLock::AwaitRelease(*store, resolved, kDaemonExitWait);
  return Status::Ok();
}

}  // namespace vexfs
