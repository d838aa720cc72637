// vexfs: the command line over a VexFS store. Parses arguments, dispatches to the
// command groups, and is the boundary where any exception becomes an exit code.
#include <exception>
#include <iostream>
#include <new>

#include "cli.h"

int main(int argc, char** argv) {
  using namespace vexfs::cli;
  Context ctx;
  CLI::App app{"vexfs: durable, versioned memory for AI agents, in one local store"};
  app.name("vexfs");
  app.require_subcommand(1);
  app.fallthrough();  // global options may follow the subcommand
  app.add_option("--store", ctx.global.store,
                 "Store directory (default: $VEXFS_STORE, else the current directory)");
  app.add_flag("--json", ctx.global.json, "Machine-readable JSON output on stdout");
  app.footer("Exit codes: 0 ok, 1 failure, 2 usage, 3 not found, 4 invalid argument, "
             "5 conflict, 6 corruption, 7 no space, 8 read-only, 9 busy (docs/cli.md).");
  AddFileCommands(app, ctx);
  AddVersionCommands(app, ctx);
  AddMaintenanceCommands(app, ctx);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);  // prints help or the usage error
    return code == 0 ? kExitOk : kExitUsage;
  } catch (const std::bad_alloc&) {
    return ctx.Fail(kExitFailure, "out of memory");
  } catch (const std::exception& e) {
    return ctx.Fail(kExitFailure, std::string("unexpected error: ") + e.what());
  }
  return ctx.exit_code;
}
