// libFuzzer target for the GloVe (.vxg) file reader and the embedder over it:
// every input goes through CheckGloveReader (glove_fuzz_body.h), and a broken
// promise aborts so libFuzzer saves the input. Built and run by scripts/fuzz.sh.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "fuzz/glove_fuzz_body.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string broken = vexfs::index::fuzz::CheckGloveReader(
      std::string_view(reinterpret_cast<const char*>(data), size));
  if (!broken.empty()) {
    std::fprintf(stderr, "glove fuzz: %s\n", broken.c_str());
    std::abort();
  }
  return 0;
}
