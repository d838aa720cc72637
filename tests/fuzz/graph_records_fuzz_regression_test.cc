// The memory graph's record and hash-tree decoders: the fuzz body
// (CheckGraphRecord) over the seeds, which must all decode, every truncation
// and every single-bit change of them, and every input saved under
// tests/fuzz/graph_regressions/, in the normal and the sanitizer builds.
#include <gtest/gtest.h>

#include <string>

#include "fuzz/graph_records_fuzz_body.h"
#include "fuzz/saved_inputs.h"

namespace vexfs::graph::fuzz {
namespace {

TEST(GraphRecordsFuzzTest, SeedsDecodeAndTheirDamageIsAnsweredCleanly) {
  ASSERT_EQ(GraphRecordSeeds().size(), 8u);
  for (const std::string& seed : GraphRecordSeeds()) {
    ASSERT_TRUE(GraphRecordDecodes(seed)) << "seed of decoder " << int(seed[0]);
    ASSERT_EQ(CheckGraphRecord(seed), "") << "seed of decoder " << int(seed[0]);
    for (size_t n = 0; n < seed.size(); ++n) {
      ASSERT_EQ(CheckGraphRecord(seed.substr(0, n)), "") << "decoder " << int(seed[0]) << " cut to " << n;
    }
    for (size_t i = 1; i < seed.size(); ++i) {
      for (int bit = 0; bit < 8; ++bit) {
        std::string changed = seed;
        changed[i] = static_cast<char>(changed[i] ^ (1 << bit));
        ASSERT_EQ(CheckGraphRecord(changed), "") << "decoder " << int(seed[0]) << " byte " << i << " bit " << bit;
      }
    }
  }
}

TEST(GraphRecordsFuzzTest, SavedInputsKeepEveryPromise) {
  vexfs::fuzz::ReplaySavedInputs(VEXFS_GRAPH_REGRESSIONS_DIR,
                                 [](const std::string& bytes) { return CheckGraphRecord(bytes); });
}

}  // namespace
}  // namespace vexfs::graph::fuzz
