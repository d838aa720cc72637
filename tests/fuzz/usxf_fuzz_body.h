// What the USXF reader fuzzer does with every input, shared with the regression
// test that replays saved inputs (usxf_fuzz_regression_test.cc) so that a crash
// found once stays fixed.
#ifndef VEXFS_TESTS_FUZZ_USXF_FUZZ_BODY_H_
#define VEXFS_TESTS_FUZZ_USXF_FUZZ_BODY_H_

#include <string>
#include <string_view>

namespace vexfs::usxf::fuzz {

// Runs every USXF reader over `bytes`: Metadata::Decode on the whole input;
// MappedFile::FromBytes and, if it opens, Verify (fast, full, and full on two
// threads), Values of every section and KvCacheInfo::FromSection of KV sections;
// StreamReader (fast and full) over a StringSource. Returns "" when the readers
// agree and every invariant holds (verified by one reader means verified by the
// other, canonical metadata re-encodes to the same bytes, decoded sizes match the
// header, ...), else what broke. Memory errors, leaks and undefined behaviour are
// left to the sanitizers; allocation sizes to libFuzzer's -malloc_limit_mb.
std::string CheckReaders(std::string_view bytes);

}  // namespace vexfs::usxf::fuzz

#endif  // VEXFS_TESTS_FUZZ_USXF_FUZZ_BODY_H_
