// Writes the transfer-protocol fuzzer's seeds (KvTransportSeeds) into a directory,
// one file each; scripts/fuzz.sh runs it before every fuzzing run.
// Usage: make_kv_transport_seeds DIR
#include <cstdio>
#include <fstream>
#include <string>

#include "fuzz/kv_transport_fuzz_body.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_kv_transport_seeds DIR\n");
    return 2;
  }
  int n = 0;
  for (const std::string& seed : vexfs::kv::fuzz::KvTransportSeeds()) {
    std::ofstream out(std::string(argv[1]) + "/seed-" + std::to_string(n++), std::ios::binary);
    out << seed;
    if (!out) return 1;
  }
  return 0;
}
