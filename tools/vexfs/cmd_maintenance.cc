// Maintenance commands: gc, fsck, info.
#include <iostream>

#include "cli.h"

namespace vexfs::cli {
namespace {

void AddGc(CLI::App& app, Context& ctx) {
  CLI::App* cmd = app.add_subcommand("gc", "Delete objects no snapshot, branch or file uses");
  cmd->callback([&ctx] {
    auto store = ctx.OpenStore();
    if (!store) return;
    Progress progress("gc: objects scanned");
    auto report = store->Gc([&](uint64_t done, uint64_t total) { progress.Update(done, total); });
    if (!report.ok()) return (void)ctx.Fail(report.status());
    if (ctx.global.json) {
      return ctx.PrintJson({{"objects_freed", report->objects_freed},
                            {"bytes_freed", report->bytes_freed},
                            {"objects_kept", report->objects_kept}});
    }
    std::cout << "gc: freed " << report->objects_freed << " object(s), "
              << FormatBytes(report->bytes_freed) << "; kept " << report->objects_kept << "\n";
  });
}

void AddFsck(CLI::App& app, Context& ctx) {
  CLI::App* cmd = app.add_subcommand(
      "fsck", "Verify every object's hash and every reference (exit 6 if problems)");
  cmd->callback([&ctx] {
    auto store = ctx.OpenStore(/*read_only=*/true);
    if (!store) return;
    Progress progress("fsck: objects checked");
    auto report = store->Fsck([&](uint64_t done, uint64_t total) { progress.Update(done, total); });
    if (!report.ok()) return (void)ctx.Fail(report.status());
    if (ctx.global.json) {
      ctx.PrintJson({{"ok", report->ok()},
                     {"objects_checked", report->objects_checked},
                     {"refs_checked", report->refs_checked},
                     {"inodes_checked", report->inodes_checked},
                     {"problems", report->problems}});
    } else {
      for (const std::string& p : report->problems) std::cout << "problem: " << p << "\n";
      std::cout << "fsck: " << report->objects_checked << " objects, " << report->refs_checked
                << " refs, " << report->inodes_checked << " inodes checked; "
                << report->problems.size() << " problem(s)\n";
    }
    if (!report->ok()) ctx.exit_code = kExitCorrupt;
  });
}

void AddInfo(CLI::App& app, Context& ctx) {
  CLI::App* cmd = app.add_subcommand("info", "Show the store's branch, size and usage");
  cmd->callback([&ctx] {
    auto store = ctx.OpenStore(/*read_only=*/true);
    if (!store) return;
    auto branch = store->CurrentBranch();
    auto stats = store->Stats();
    if (!branch.ok()) return (void)ctx.Fail(branch.status());
    if (!stats.ok()) return (void)ctx.Fail(stats.status());
    if (ctx.global.json) {
      return ctx.PrintJson({{"store", store->path()},
                            {"branch", *branch},
                            {"objects", stats->objects},
                            {"object_bytes", stats->object_bytes},
                            {"map_size", stats->map_size},
                            {"map_used", stats->map_used}});
    }
    std::cout << "store:   " << store->path() << "\nbranch:  " << *branch
              << "\nobjects: " << stats->objects << " (" << FormatBytes(stats->object_bytes)
              << ")\nused:    " << FormatBytes(stats->map_used) << " of "
              << FormatBytes(stats->map_size) << "\n";
  });
}

}  // namespace

void AddMaintenanceCommands(CLI::App& app, Context& ctx) {
  AddGc(app, ctx);
  AddFsck(app, ctx);
  AddInfo(app, ctx);
}

}  // namespace vexfs::cli
