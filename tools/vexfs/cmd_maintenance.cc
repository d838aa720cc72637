// Maintenance commands: gc, fsck, info.
#include <iostream>

#include "cli.h"

namespace vexfs::cli {
namespace {

void AddGc(CLI::App& app, Context& ctx) {
  CLI::App* cmd = app.add_subcommand("gc", "Delete objects no snapshot, branch or file uses");
  cmd->callback([&ctx] {
    auto db = ctx.OpenDb();
    if (!db) return;
    Store* store = &db->store();
    Progress progress("gc: objects scanned");
    auto report = store->Gc([&](uint64_t done, uint64_t total) { progress.Update(done, total); });
    if (!report.ok()) return (void)ctx.Fail(report.status());
    if (ctx.global.json) {
      return ctx.PrintJson(GcReportJson(*report));
    }
    std::cout << "gc: freed " << report->objects_freed << " object(s), "
              << FormatBytes(report->bytes_freed) << "; kept " << report->objects_kept << "\n";
  });
}

void AddFsck(CLI::App& app, Context& ctx) {
  CLI::App* cmd = app.add_subcommand(
      "fsck", "Verify every object's hash and every reference (exit 6 if problems)");
  cmd->callback([&ctx] {
    auto db = ctx.OpenDb(/*read_only=*/true);
    if (!db) return;
    Store* store = &db->store();
    Progress progress("fsck: objects checked");
    auto report = store->Fsck([&](uint64_t done, uint64_t total) { progress.Update(done, total); });
    if (!report.ok()) return (void)ctx.Fail(report.status());
    if (ctx.global.json) {
      ctx.PrintJson(FsckReportJson(*report));
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
    auto db = ctx.OpenDb(/*read_only=*/true);
    if (!db) return;
    Store* store = &db->store();
    auto branch = store->CurrentBranch();
    auto stats = store->Stats();
    if (!branch.ok()) return (void)ctx.Fail(branch.status());
    if (!stats.ok()) return (void)ctx.Fail(stats.status());
    if (ctx.global.json) {
      nlohmann::json out = StoreStatsJson(*stats);
      out["store"] = store->path();
      out["branch"] = *branch;
      return ctx.PrintJson(out);
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
