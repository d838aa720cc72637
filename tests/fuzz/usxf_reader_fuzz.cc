// libFuzzer target for the USXF readers: every input goes through CheckReaders
// (usxf_fuzz_body.h), and a broken invariant aborts so libFuzzer saves the input.
// Mutations are USXF-aware (usxf_mutator.h). Build and run with scripts/fuzz.sh.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "fuzz/usxf_fuzz_body.h"
#include "fuzz/usxf_mutator.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string broken =
      vexfs::usxf::fuzz::CheckReaders(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!broken.empty()) {
    std::fprintf(stderr, "usxf fuzz: %s\n", broken.c_str());
    std::abort();
  }
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  return vexfs::usxf::fuzz::MutateUsxf(data, size, max_size, seed);
}
