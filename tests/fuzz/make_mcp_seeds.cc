// Writes the MCP message fuzzer's seeds (McpSeeds) into a directory, one file each.
// Usage: make_mcp_seeds DIR
#include "fuzz/mcp_message_fuzz_body.h"
#include "fuzz/seed_files.h"

int main(int argc, char** argv) {
  return vexfs::fuzz::WriteNumberedSeeds(argc, argv, "make_mcp_seeds",
                                         vexfs::mcp::fuzz::McpSeeds());
}
