// libFuzzer target for the KV state reader: every input goes through
// CheckStateInput (kv_state_fuzz_body.h), and a broken promise aborts so libFuzzer
// saves the input. State files get the USXF-aware mutation (usxf_mutator.h), so
// that changed sections, the kv.reference JSON among them, get past the
// checksums; reference texts get libFuzzer's own. Built and run by scripts/fuzz.sh.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "fuzz/kv_state_fuzz_body.h"
#include "fuzz/usxf_mutator.h"
#include "usxf/format.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string broken = vexfs::kv::fuzz::CheckStateInput(
      std::string_view(reinterpret_cast<const char*>(data), size));
  if (!broken.empty()) {
    std::fprintf(stderr, "kv state fuzz: %s\n", broken.c_str());
    std::abort();
  }
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  using vexfs::usxf::kMagic;
  if (size >= sizeof(kMagic) && std::memcmp(data, kMagic, sizeof(kMagic)) == 0) {
    return vexfs::usxf::fuzz::MutateUsxf(data, size, max_size, seed);
  }
  return LLVMFuzzerMutate(data, size, max_size);
}
