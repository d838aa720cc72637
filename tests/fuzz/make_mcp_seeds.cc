// Writes the MCP message fuzzer's seeds (McpSeeds) into a directory, one file each.
#include <fstream>
#include <iostream>
#include <string>

#include "fuzz/mcp_message_fuzz_body.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: make_mcp_seeds DIR\n";
    return 2;
  }
  int n = 0;
  for (const std::string& seed : vexfs::mcp::fuzz::McpSeeds()) {
    std::ofstream(std::string(argv[1]) + "/seed-" + std::to_string(n++), std::ios::binary) << seed;
  }
  return 0;
}
