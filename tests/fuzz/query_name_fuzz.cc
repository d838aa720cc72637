// libFuzzer target for the mount's search-directory names: every input goes
// through CheckQueryName (query_name_fuzz_body.h), and a broken promise aborts
// so libFuzzer saves the input. Built and run by scripts/fuzz.sh.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "fuzz/query_name_fuzz_body.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string broken = vexfs::fuse::fuzz::CheckQueryName(
      std::string_view(reinterpret_cast<const char*>(data), size));
  if (!broken.empty()) {
    std::fprintf(stderr, "query name fuzz: %s\n", broken.c_str());
    std::abort();
  }
  return 0;
}
