// Replays GloVe file inputs through the fuzz body (CheckGloveReader) in the
// normal and the sanitizer builds: small files made by the real converter
// (scripts/convert_glove.py), every single-byte change of their header and a
// sample of their other bytes (as given and with the checksum repaired), every
// truncation, and every input the fuzzer saved under tests/fuzz/glove_regressions/.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/glove_fuzz_body.h"
#include "index/embedders/glove_file.h"
#include "test_util.h"

namespace vexfs::index::fuzz {
namespace {

// Three words, one of them non-ASCII, in rank order; dimension 4.
constexpr std::string_view kTinyJson = R"({"precision":8,"l2NormIndex":4,"wordIndex":5,
  "size":3,"dimensions":4,"words":["the","car","\u00e9t\u00e9"],
  "vectors":{"car":[0,1,0,0,1,1],"the":[1,0,0,0,1,0],"\u00e9t\u00e9":[0,0,0.5,-2,2.06,2]},
  "unkVector":[0,0,0,0,0,-1]})";

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string Converted(const test::TempDir& dir, const std::string& dtype) {
  std::string json = dir.Sub("tiny.json"), out = dir.Sub("tiny-" + dtype + ".vxg");
  std::ofstream(json) << kTinyJson;
  std::string cmd = std::string("python3 '") + VEXFS_CONVERT_GLOVE + "' --dtype " + dtype + " '" +
                    json + "' '" + out + "' >/dev/null";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return ReadAll(out);
}

class GloveFuzzRegressionTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GloveFuzzRegressionTest, ConvertedFilesAndEveryHeaderByteChange) {
  test::TempDir dir;
  std::string file = Converted(dir, GetParam());
  ASSERT_GT(file.size(), kGloveHeaderSize + kGloveTrailerSize);
  ASSERT_TRUE(GloveFile::FromBytes(file, "seed").ok());
  EXPECT_EQ(CheckGloveReader(file), "");
  for (size_t i = 0; i < file.size(); i += i < kGloveHeaderSize ? 1 : 7) {
    for (int bit : {0, 3, 7}) {
      std::string changed = file;
      changed[i] = static_cast<char>(changed[i] ^ (1 << bit));
      EXPECT_EQ(CheckGloveReader(changed), "") << "byte " << i << " bit " << bit;
      // As given, a changed byte never passes the checksum.
      EXPECT_FALSE(GloveFile::FromBytes(changed, "changed").ok()) << "byte " << i;
    }
  }
  for (size_t n = 0; n < file.size(); n += 3) {
    EXPECT_EQ(CheckGloveReader(file.substr(0, n)), "") << "truncated to " << n;
    EXPECT_FALSE(GloveFile::FromBytes(file.substr(0, n), "cut").ok()) << n;
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, GloveFuzzRegressionTest, ::testing::Values("f16", "f32"));

TEST(GloveFuzzSaved, EverySavedInputKeepsThePromises) {
  size_t replayed = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(VEXFS_GLOVE_REGRESSIONS_DIR, ec)) {
    if (!e.is_regular_file() || e.path().filename() == "README.md") continue;
    EXPECT_EQ(CheckGloveReader(ReadAll(e.path())), "") << e.path();
    ++replayed;
  }
  EXPECT_FALSE(ec) << ec.message();
  // The directory holds its README at least; inputs arrive as the fuzzer finds them.
  EXPECT_TRUE(std::filesystem::exists(std::string(VEXFS_GLOVE_REGRESSIONS_DIR) + "/README.md"));
  RecordProperty("replayed", static_cast<int>(replayed));
}

}  // namespace
}  // namespace vexfs::index::fuzz
