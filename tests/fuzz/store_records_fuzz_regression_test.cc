// Replays store-record inputs through the fuzz body (CheckStoreRecord) in the
// normal and the sanitizer builds: the seeds, every truncation and every
// single-byte change of them, and every input the fuzzer saved under
// tests/fuzz/store_regressions/.
#include <gtest/gtest.h>

#include <string>

#include "fuzz/store_records_fuzz_body.h"
#include "fuzz/saved_inputs.h"

namespace vexfs::internal::fuzz {
namespace {

TEST(StoreRecordsFuzzTest, SeedsDecodeAndTheirDamageIsRefusedOrConsistent) {
  auto seeds = StoreRecordSeeds();
  ASSERT_EQ(seeds.size(), 14u);
  for (const std::string& seed : seeds) {
    bool decoded = false;
    EXPECT_EQ(CheckStoreRecord(seed, &decoded), "");
    // Otherwise its damage below would be refused for the seed's own fault.
    EXPECT_TRUE(decoded) << "seed " << &seed - seeds.data() << " does not decode";
    for (size_t n = 0; n < seed.size(); ++n) {
      ASSERT_EQ(CheckStoreRecord(seed.substr(0, n)), "") << "truncated to " << n;
    }
    for (size_t i = 1; i < seed.size(); ++i) {
      for (int bit : {0x01, 0x80}) {
        std::string changed = seed;
        changed[i] = static_cast<char>(changed[i] ^ bit);
        ASSERT_EQ(CheckStoreRecord(changed), "") << "byte " << i << " ^ " << bit;
      }
    }
  }
}

TEST(StoreRecordsFuzzTest, SavedInputsKeepEveryPromise) {
  vexfs::fuzz::ReplaySavedInputs(VEXFS_STORE_REGRESSIONS_DIR,
                                 [](const std::string& bytes) { return CheckStoreRecord(bytes); });
}

}  // namespace
}  // namespace vexfs::internal::fuzz
