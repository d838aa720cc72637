// `vexfs mcp`: serves the store to AI agents over the Model Context Protocol on
// stdin and stdout (docs/agents.md).
#include <csignal>
#include <iostream>

#include "cli.h"
#include "vexfs/mcp.h"

namespace vexfs::cli {

void AddMcpCommands(CLI::App& app, Context& ctx) {
  auto options = std::make_shared<McpOptions>();
  CLI::App* cmd = app.add_subcommand(
      "mcp", "Serve the store to AI agents over MCP (JSON-RPC on stdin/stdout) until stdin ends");
  cmd->add_option("--branch", options->branch, "Branch the tools work on (default: current)");
  cmd->add_flag("--read-only", options->read_only,
                "Open the store read-only and offer only the tools that read");
  cmd->callback([&ctx, options] {
    options->store = ctx.StorePath();
    // stdout carries the protocol only; diagnostics go to stderr. A client that
    // goes away makes the next reply fail with EPIPE, which ends the session
    // with an error, instead of SIGPIPE killing the process mid-transaction.
    std::signal(SIGPIPE, SIG_IGN);
    std::ios::sync_with_stdio(false);
    Status st = ServeMcp(*options, std::cin, std::cout, std::cerr);
    if (!st.ok()) ctx.Fail(st);
  });
}

}  // namespace vexfs::cli
