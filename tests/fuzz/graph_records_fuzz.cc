// libFuzzer target for the memory graph's record and hash-tree decoders: every
// input goes through CheckGraphRecord (graph_records_fuzz_body.h), and a broken
// promise aborts so libFuzzer saves the input. Built and run by scripts/fuzz.sh.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "fuzz/graph_records_fuzz_body.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string broken = vexfs::graph::fuzz::CheckGraphRecord(
      std::string_view(reinterpret_cast<const char*>(data), size));
  if (!broken.empty()) {
    std::fprintf(stderr, "graph record fuzz: %s\n", broken.c_str());
    std::abort();
  }
  return 0;
}
