// Writes the search-directory name fuzzer's seeds (QueryNameSeeds) into a
// directory, one file each.
#include <fstream>
#include <iostream>
#include <string>

#include "fuzz/query_name_fuzz_body.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: make_query_name_seeds DIR\n";
    return 2;
  }
  int n = 0;
  for (const std::string& seed : vexfs::fuse::fuzz::QueryNameSeeds()) {
    std::ofstream(std::string(argv[1]) + "/seed-" + std::to_string(n++), std::ios::binary) << seed;
  }
  return 0;
}
