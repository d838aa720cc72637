// Writes the store-record fuzzer's seeds (StoreRecordSeeds) into a directory,
// one file each; scripts/fuzz.sh runs it before every fuzzing run.
#include <cstdio>
#include <fstream>
#include <string>

#include "fuzz/store_records_fuzz_body.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_store_seeds DIR\n");
    return 2;
  }
  int n = 0;
  for (const std::string& seed : vexfs::internal::fuzz::StoreRecordSeeds()) {
    std::ofstream out(std::string(argv[1]) + "/seed-" + std::to_string(n++), std::ios::binary);
    out << seed;
    if (!out) return 1;
  }
  return 0;
}
