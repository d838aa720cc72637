// The MCP server: a store served to AI agents over the Model Context Protocol
// (JSON-RPC 2.0, one message per line on stdin and stdout). It offers tools for
// files (read, write, exact-text edit, list, stat, move, delete, mkdir), hybrid
// search, and versions (snapshots, log, diff, restore, branches), and the store's
// files and snapshots as vexfs:// resources. docs/agents.md documents the tools,
// their limits and how to configure a client.
//
// Many servers (processes) may serve one store at once: every write is one store
// transaction, so none is lost.
#ifndef VEXFS_MCP_H_
#define VEXFS_MCP_H_

#include <iosfwd>
#include <string>

#include "vexfs/status.h"

// The public API: exported from libvexfs.so, which is built with hidden visibility.
#pragma GCC visibility push(default)

namespace vexfs {

struct McpOptions {
  std::string store;   // the store directory
  std::string branch;  // the branch the tools work on ("" = HEAD's at start)
  bool read_only = false;  // open the store read-only and offer no writing tool
};

// Serves one MCP session: reads requests from `in` until it ends, answers on
// `out`, and writes one line per problem worth a human's attention to `log`.
// Bad messages and failing tools get JSON-RPC or tool errors; the session goes
// on. Returns an error only if the store cannot be opened or `out` fails.
Status ServeMcp(const McpOptions& options, std::istream& in, std::ostream& out,
                std::ostream& log);

}  // namespace vexfs

#pragma GCC visibility pop

#endif  // VEXFS_MCP_H_
