// USXF-aware mutation for libFuzzer targets (see usxf_mutator.h).
#include "fuzz/usxf_mutator.h"

#include <algorithm>
#include <cstring>
#include <random>

#include "fuzz/usxf_fuzz_repair.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace vexfs::usxf::fuzz {
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

size_t MutateUsxf(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  std::minstd_rand rng(seed);
  size = rng() % 2 == 0 ? LLVMFuzzerMutate(data, size, max_size) : MutateInPlace(data, size, rng);
  if (rng() % 8 != 0) RepairChecksums(reinterpret_cast<char*>(data), size);
  return size;
}

}  // namespace vexfs::usxf::fuzz
