// The mutation step of the fuzzers whose inputs are USXF files (the USXF readers,
// the KV state reader). Built only into libFuzzer targets: it calls libFuzzer's
// own LLVMFuzzerMutate, which the regression tests of the normal build lack.
#ifndef VEXFS_TESTS_FUZZ_USXF_MUTATOR_H_
#define VEXFS_TESTS_FUZZ_USXF_MUTATOR_H_

#include <cstddef>
#include <cstdint>

namespace vexfs::usxf::fuzz {

// Half the time libFuzzer's own mutations, half a change in place (the size
// kept, half of them in the preamble and header); then, seven times in eight,
// the checksums and digests recomputed (RepairChecksums) so that mutated files
// get past the integrity checks into the parsing and decoding behind them. The
// remaining eighth keeps the integrity checks themselves under test. A saved
// crash input is the repaired file, so it reproduces as it is. Returns the new size.
size_t MutateUsxf(uint8_t* data, size_t size, size_t max_size, unsigned int seed);

}  // namespace vexfs::usxf::fuzz

#endif  // VEXFS_TESTS_FUZZ_USXF_MUTATOR_H_
