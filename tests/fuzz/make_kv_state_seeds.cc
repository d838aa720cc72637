// Writes the KV state fuzzer's seeds (KvStateSeeds) into a directory, one file
// each; scripts/fuzz.sh runs it before every fuzzing run, so none is committed.
// Usage: make_kv_state_seeds DIR
#include <cstdio>
#include <fstream>
#include <string>

#include "fuzz/kv_state_fuzz_body.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_kv_state_seeds DIR\n");
    return 2;
  }
  for (const auto& [name, bytes] : vexfs::kv::fuzz::KvStateSeeds()) {
    std::ofstream out(std::string(argv[1]) + "/" + name, std::ios::binary);
    out << bytes;
    if (!out) return 1;
  }
  return 0;
}
