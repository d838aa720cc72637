// Replays MCP message inputs through the fuzz body (CheckMcpLine) in the normal
// and the sanitizer builds: the seeds, which must all be well-formed, every
// truncation and every single-bit change of them, and every input saved under
// tests/fuzz/mcp_regressions/.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "fuzz/mcp_message_fuzz_body.h"

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
  int replayed = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(VEXFS_MCP_REGRESSIONS_DIR, ec)) {
    if (entry.path().filename() == "README.md") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    EXPECT_EQ(CheckMcpLine(bytes), "") << entry.path();
    ++replayed;
  }
  EXPECT_FALSE(ec) << ec.message();
  RecordProperty("replayed", replayed);
}

}  // namespace
}  // namespace vexfs::mcp::fuzz
