// Replays MCP message inputs through the fuzz body (CheckMcpLine) in the normal
// and the sanitizer builds: the seeds, which must all be well-formed, every
// truncation and every single-bit change of them, and every input saved under
// tests/fuzz/mcp_regressions/.
#include <gtest/gtest.h>

#include <string>

#include "fuzz/mcp_message_fuzz_body.h"
#include "fuzz/saved_inputs.h"

namespace vexfs::mcp::fuzz {
namespace {

TEST(McpMessageFuzzTest, SeedsParseAndTheirDamageIsAnsweredCleanly) {
  const auto seeds = McpSeeds();
  ASSERT_EQ(seeds.size(), 5u);
  int requests = 0;
  for (const std::string& seed : seeds) {
    bool request = false;
    EXPECT_EQ(CheckMcpLine(seed, &request), "");
    requests += request;
    for (size_t n = 0; n < seed.size(); ++n) {
      ASSERT_EQ(CheckMcpLine(seed.substr(0, n)), "") << "cut to " << n;
    }
    for (size_t i = 0; i < seed.size(); ++i) {
      for (int bit = 0; bit < 8; ++bit) {
        std::string changed = seed;
        changed[i] = static_cast<char>(changed[i] ^ (1 << bit));
        ASSERT_EQ(CheckMcpLine(changed), "") << "byte " << i << " bit " << bit;
      }
    }
  }
  EXPECT_EQ(requests, 4) << "every seed but the notification is a request";
}

TEST(McpMessageFuzzTest, SavedInputsKeepEveryPromise) {
  vexfs::fuzz::ReplaySavedInputs(VEXFS_MCP_REGRESSIONS_DIR,
                                 [](const std::string& bytes) { return CheckMcpLine(bytes); });
}

}  // namespace
}  // namespace vexfs::mcp::fuzz
