// libFuzzer target for an agent bundle's manifest and object pack decoders:
// every input goes through CheckBundlePart (agent_bundle_fuzz_body.h), and a
// broken promise aborts so libFuzzer saves the input. Built and run by
// scripts/fuzz.sh.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "fuzz/agent_bundle_fuzz_body.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string broken = vexfs::agent::fuzz::CheckBundlePart(
      std::string_view(reinterpret_cast<const char*>(data), size));
  if (!broken.empty()) {
    std::fprintf(stderr, "agent bundle fuzz: %s\n", broken.c_str());
    std::abort();
  }
  return 0;
}
