// libFuzzer target for the USXF readers: every input goes through CheckReaders
// (usxf_fuzz_body.h), and a broken invariant aborts so libFuzzer saves the input.
// Build and run with scripts/fuzz.sh.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <string_view>

#include "fuzz/usxf_fuzz_body.h"
#include "fuzz/usxf_fuzz_repair.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string broken =
      vexfs::usxf::fuzz::CheckReaders(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!broken.empty()) {
    std::fprintf(stderr, "usxf fuzz: %s\n", broken.c_str());
    std::abort();
  }
  return 0;
}

namespace {

// Mutations that keep a file's size: libFuzzer's own mutators applied to a short
// window of the input. Inserting or erasing bytes shifts every offset after them,
// which the header rules refuse at once; changing bytes in place is what reaches
// the rules on individual fields. Half the windows fall in the preamble and
// header, where the structure is.
size_t MutateInPlace(uint8_t* data, size_t size, std::minstd_rand& rng) {
  if (size == 0) return size;
  uint64_t header_end = size;
  if (size >= 40) {
    uint64_t header_length;
    std::memcpy(&header_length, data + 32, sizeof(header_length));
    header_end = std::min<uint64_t>(size, 80 + std::min<uint64_t>(header_length, size));
  }
  const size_t span = rng() % 2 == 0 ? static_cast<size_t>(header_end) : size;
  const size_t at = rng() % span;
  const size_t length = std::min<size_t>(size - at, 1 + rng() % 16);
  uint8_t window[16];
  std::memcpy(window, data + at, length);
  const size_t changed = LLVMFuzzerMutate(window, length, length);
  std::memcpy(data + at, window, changed);
  return size;
}

}  // namespace

// Half the time libFuzzer's own mutations, half in place (above); then, most of
// the time, the checksums and digests recomputed so that mutated files get past
// the integrity checks into the parsing and decoding behind them. The remaining
// eighth keeps the integrity checks themselves under test. A saved crash input is
// the repaired file, so it reproduces as it is.
extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  std::minstd_rand rng(seed);
  size = rng() % 2 == 0 ? LLVMFuzzerMutate(data, size, max_size) : MutateInPlace(data, size, rng);
  if (rng() % 8 != 0) vexfs::usxf::fuzz::RepairChecksums(reinterpret_cast<char*>(data), size);
  return size;
}
