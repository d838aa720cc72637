// What the store-record fuzzer does with every input, shared with the regression
// test that replays seeds and saved inputs (store_records_fuzz_regression_test.cc).
// The decoders are those of bytes a store reads back from its LMDB file, which a
// damaged disk, another program or a copied-in store can have changed.
#ifndef VEXFS_TESTS_FUZZ_STORE_RECORDS_FUZZ_BODY_H_
#define VEXFS_TESTS_FUZZ_STORE_RECORDS_FUZZ_BODY_H_

#include <string>
#include <string_view>
#include <vector>

namespace vexfs::internal::fuzz {

// The first byte picks a decoder (inode, branch, dirent, manifest, tree, commit,
// stored object), the rest is its input. A value that decodes must encode to
// bytes that decode to the same encoding again (nothing is lost or invented),
// and a stored object must either verify or fail with a status. Returns "" when
// all holds, else what broke; memory errors are left to the sanitizers. A refused
// input passes having checked little, so `decoded` (when not null) says whether
// the input decoded (a stored object: verified by its full hash).
std::string CheckStoreRecord(std::string_view bytes, bool* decoded = nullptr);

// One valid input per decoder (selector byte included), for seeding.
std::vector<std::string> StoreRecordSeeds();

}  // namespace vexfs::internal::fuzz

#endif  // VEXFS_TESTS_FUZZ_STORE_RECORDS_FUZZ_BODY_H_
