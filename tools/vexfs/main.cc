// vexfs: the command line over a VexFS store. Parses arguments, dispatches to the
// command groups, and is the boundary where any exception becomes an exit code.
#include <cstdio>
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "cli.h"

namespace {

// One line for a command-line error that names the argument at fault. CLI11's own
// text is two lines and, for an unknown command, only says one is required.
std::string UsageMessage(const CLI::App& app, const CLI::ParseError& e) {
  const CLI::App* cmd = &app;
  std::string path = app.get_name();
  while (!cmd->get_subcommands().empty()) {
    cmd = cmd->get_subcommands().front();
    path += " " + cmd->get_name();
  }
  std::string what = e.what();
  bool missing_command = dynamic_cast<const CLI::RequiredError*>(&e) != nullptr &&
                         cmd->get_require_subcommand_min() > 0;
  if (missing_command) {
    std::vector<std::string> extra = app.remaining();
    if (extra.empty()) {
      what = "'" + path + "' needs a command";
    } else if (extra[0].starts_with("-")) {
      what = "unknown option '" + extra[0] + "'";
    } else {
      what = "unknown command '" + extra[0] + "' for '" + path + "'";
    }
  }
  return what + " (see '" + path + " --help')";
}

// True when everything printed reached stdout; output lost to a full disk or a
// failed pipe must not look like success to the script reading it.
bool StdoutIntact() {
  std::cout.flush();
  bool ok = std::cout.good();
  ok = std::fflush(stdout) == 0 && ok;
  return ok && std::ferror(stdout) == 0;
}

}  // namespace

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
             "5 conflict, 6 corruption, 7 no space, 8 read-only, 9 busy, 10 untrusted "
             "signature (docs/cli.md).");
  AddFileCommands(app, ctx);
  AddVersionCommands(app, ctx);
  AddMaintenanceCommands(app, ctx);
  AddSearchCommands(app, ctx);
  AddMountCommands(app, ctx);
  AddUsxfCommands(app, ctx);
  AddKvCommands(app, ctx);
  AddMcpCommands(app, ctx);
  AddGraphCommands(app, ctx);
  AddAgentCommands(app, ctx);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help: usage on stdout
    return ctx.Fail(kExitUsage, UsageMessage(app, e));
  } catch (const std::bad_alloc&) {
    return ctx.Fail(kExitFailure, "out of memory");
  } catch (const std::exception& e) {
    return ctx.Fail(kExitFailure, std::string("unexpected error: ") + e.what());
  }
  if (ctx.exit_code == kExitOk && !StdoutIntact()) {
    return ctx.Fail(kExitFailure, "cannot write to standard output");
  }
  return ctx.exit_code;
}
