// vexfs mount / umount: serve a store's working tree as a file system.
#include <filesystem>

#include "cli.h"
#include "vexfs/mount.h"

namespace vexfs::cli {
namespace {

struct MountArgs {
  MountOptions options;
  std::vector<std::string> option_lists;  // every -o
};

void AddMount(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<MountArgs>();
  CLI::App* cmd = app.add_subcommand("mount", "Mount a store's working tree (docs/mount.md)");
  cmd->add_option("store", args->options.store_path, "Store directory")->required();
  cmd->add_option("mountpoint", args->options.mountpoint, "An existing directory")->required();
  cmd->add_option("--branch", args->options.branch, "Serve this branch (default: the current)");
  cmd->add_flag("-f,--foreground", args->options.foreground, "Serve in this process");
  cmd->add_flag("-d,--debug", args->options.debug, "Trace every request (implies -f)");
  cmd->add_option("-o", args->option_lists,
                  "Options: ro, rw, allow_other, branch=B, nosuid, nodev, noatime, remount ...");
  cmd->callback([&ctx, args] {
    MountOptions o = args->options;
    for (const std::string& list : args->option_lists) {
      Status st = ApplyMountOptionList(list, &o);
      if (!st.ok()) return (void)ctx.Fail(st);
    }
    // The source as the mount table shows it ("vexfs:STORE"), as mount(8)
    // passes it on a remount.
    if (o.store_path.rfind("vexfs:", 0) == 0) o.store_path.erase(0, 6);
    // The daemon changes directory: it needs absolute paths.
    std::error_code ec;
    o.store_path = std::filesystem::absolute(o.store_path, ec).lexically_normal().string();
    o.mountpoint = std::filesystem::absolute(o.mountpoint, ec).lexically_normal().string();
    if (!std::filesystem::is_directory(o.mountpoint, ec)) {
      return (void)ctx.Fail(
          Status::NotFound("mount point '" + o.mountpoint + "' is not an existing directory"));
    }
    Status st = Mount(o);
    if (!st.ok()) ctx.Fail(st);
  });
}

void AddUmount(CLI::App& app, Context& ctx) {
  auto mountpoint = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("umount", "Unmount a VexFS mount");
  cmd->add_option("mountpoint", *mountpoint, "Where it is mounted")->required();
  cmd->callback([&ctx, mountpoint] {
    Status st = Unmount(*mountpoint);
    if (!st.ok()) ctx.Fail(st);
  });
}

}  // namespace

void AddMountCommands(CLI::App& app, Context& ctx) {
  AddMount(app, ctx);
  AddUmount(app, ctx);
}

}  // namespace vexfs::cli
