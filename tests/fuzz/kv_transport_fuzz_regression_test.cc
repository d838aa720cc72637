// Replays transfer-protocol inputs through the fuzz body (CheckTransportInput) in
// the normal and the sanitizer builds: the seeds, which must all decode, every
// truncation and every single-bit change of them, and every input saved under
// tests/fuzz/kv_transport_regressions/.
#include <gtest/gtest.h>

#include <string>

#include "fuzz/kv_transport_fuzz_body.h"
#include "fuzz/saved_inputs.h"

namespace vexfs::kv::fuzz {
namespace {

TEST(KvTransportFuzzTest, SeedsDecodeAndTheirDamageIsRefusedOrConsistent) {
  const auto seeds = KvTransportSeeds();
  ASSERT_EQ(seeds.size(), 5u);
  for (const std::string& seed : seeds) {
    bool decoded = false;
    EXPECT_EQ(CheckTransportInput(seed, &decoded), "");
    EXPECT_TRUE(decoded) << "seed " << &seed - seeds.data() << " does not decode";
    for (size_t n = 0; n < seed.size(); ++n) {
      ASSERT_EQ(CheckTransportInput(seed.substr(0, n)), "") << "cut to " << n;
    }
    for (size_t i = 1; i < seed.size(); ++i) {
      for (int bit = 0; bit < 8; ++bit) {
        std::string changed = seed;
        changed[i] = static_cast<char>(changed[i] ^ (1 << bit));
        ASSERT_EQ(CheckTransportInput(changed), "") << "byte " << i << " bit " << bit;
      }
    }
  }
}

TEST(KvTransportFuzzTest, SavedInputsKeepEveryPromise) {
  vexfs::fuzz::ReplaySavedInputs(VEXFS_KV_TRANSPORT_REGRESSIONS_DIR,
                                 [](const std::string& bytes) { return CheckTransportInput(bytes); });
}

}  // namespace
}  // namespace vexfs::kv::fuzz
