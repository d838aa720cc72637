// The main of a seed writer: a fuzzer's seeds, one file each ("seed-0", ...),
// into the directory scripts/fuzz.sh names before every fuzzing run (seeds
// follow the code that makes them, so none is committed).
#ifndef VEXFS_TESTS_FUZZ_SEED_FILES_H_
#define VEXFS_TESTS_FUZZ_SEED_FILES_H_

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace vexfs::fuzz {

// `tool DIR`: 0 when every seed was written, 1 when one could not be, 2 on bad usage.
inline int WriteNumberedSeeds(int argc, char** argv, const char* tool,
                              const std::vector<std::string>& seeds) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", tool);
    return 2;
  }
  int n = 0;
  for (const std::string& seed : seeds) {
    std::ofstream out(std::string(argv[1]) + "/seed-" + std::to_string(n++), std::ios::binary);
    out << seed;
    if (!out) return 1;
  }
  return 0;
}

}  // namespace vexfs::fuzz

#endif  // VEXFS_TESTS_FUZZ_SEED_FILES_H_
