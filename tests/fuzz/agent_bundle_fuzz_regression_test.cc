// An agent bundle's manifest and object pack decoders: the fuzz body
// (CheckBundlePart) over the seeds, which must all decode, every truncation
// and every single-bit change of them, and every input saved under
// tests/fuzz/agent_bundle_regressions/, in the normal and the sanitizer builds.
#include <gtest/gtest.h>

#include <string>

#include "agent/object_pack.h"
#include "fuzz/agent_bundle_fuzz_body.h"
#include "fuzz/saved_inputs.h"

namespace vexfs::agent::fuzz {
namespace {

TEST(AgentBundleFuzzTest, SeedsDecodeAndTheirDamageIsAnsweredCleanly) {
  ASSERT_EQ(BundlePartSeeds().size(), 2u);
  for (const std::string& seed : BundlePartSeeds()) {
    ASSERT_TRUE(BundlePartDecodes(seed)) << "seed of decoder " << int(seed[0]);
    ASSERT_EQ(CheckBundlePart(seed), "") << "seed of decoder " << int(seed[0]);
    for (size_t n = 0; n < seed.size(); ++n) {
      ASSERT_EQ(CheckBundlePart(seed.substr(0, n)), "") << "decoder " << int(seed[0]) << " cut to " << n;
    }
    for (size_t i = 1; i < seed.size(); ++i) {
      for (int bit = 0; bit < 8; ++bit) {
        std::string changed = seed;
        changed[i] = static_cast<char>(changed[i] ^ (1 << bit));
        ASSERT_EQ(CheckBundlePart(changed), "") << "decoder " << int(seed[0]) << " byte " << i << " bit " << bit;
      }
    }
  }
}

TEST(AgentBundleFuzzTest, APackCutShortIsNamedByItsOffset) {
  const std::string pack = BundlePartSeeds()[1].substr(1);
  // The second record starts after the first: 32 bytes of id, a one-byte
  // length (6) and "commit".
  Status st = DecodePack(pack.substr(0, pack.size() - 1), "objects.3",
                         [](const ObjectId&, std::string_view) { return Status::Ok(); });
  ASSERT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_NE(st.message().find("objects.3"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("offset 39"), std::string::npos) << st.ToString();
}

TEST(AgentBundleFuzzTest, SavedInputsKeepEveryPromise) {
  vexfs::fuzz::ReplaySavedInputs(VEXFS_AGENT_BUNDLE_REGRESSIONS_DIR,
                                 [](const std::string& bytes) { return CheckBundlePart(bytes); });
}

}  // namespace
}  // namespace vexfs::agent::fuzz
