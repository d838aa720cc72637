// What the GloVe file fuzzer does with every input, shared with the regression
// test that replays saved inputs (glove_fuzz_regression_test.cc).
#ifndef VEXFS_TESTS_FUZZ_GLOVE_FUZZ_BODY_H_
#define VEXFS_TESTS_FUZZ_GLOVE_FUZZ_BODY_H_

#include <string>
#include <string_view>

namespace vexfs::index::fuzz {

// `bytes` with its trailing XXH3-64 recomputed, so that mutations reach the
// header, section and vocabulary rules instead of stopping at the checksum.
std::string RepairGloveChecksum(std::string_view bytes);

// Opens `bytes` as given and repaired with GloveFile::FromBytes. A file that
// opens must keep every promise: each sorted word is found again at its own
// rank, ranks and vectors are in bounds, and the embedder over it gives finite
// unit vectors for any text. Returns "" when all holds, else what broke; memory
// errors and undefined behaviour are left to the sanitizers.
std::string CheckGloveReader(std::string_view bytes);

}  // namespace vexfs::index::fuzz

#endif  // VEXFS_TESTS_FUZZ_GLOVE_FUZZ_BODY_H_
