// The mount's search-directory names: the grammar by example, then the fuzz
// body (CheckQueryName) over the seeds, which must all parse, every truncation
// and every single-bit change of them, and every input saved under
// tests/fuzz/query_name_regressions/, in the normal and the sanitizer builds.
#include <gtest/gtest.h>

#include <string>

#include "fuse/query_name.h"
#include "fuzz/query_name_fuzz_body.h"
#include "fuzz/saved_inputs.h"

namespace vexfs::fuse::fuzz {
namespace {

TEST(QueryNameTest, TheGrammarByExample) {
  auto plain = ParseQueryName("release notes");
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_EQ(plain->query, "release notes");
  EXPECT_EQ(plain->k, 10u);
  EXPECT_FALSE(plain->mode.has_value());

  auto options = ParseQueryName("a%40b@k=2,mode=lexical,under=projects%2Fvexfs,where=lang=en");
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  EXPECT_EQ(options->query, "a@b");
  EXPECT_EQ(options->k, 2u);
  EXPECT_EQ(options->mode, SearchMode::kLexical);
  EXPECT_EQ(options->under, "projects/vexfs");
  EXPECT_EQ(options->where.at("lang"), "en");

  // After the last '@' only options count; otherwise the '@' is text.
  auto text = ParseQueryName("meet @ noon");
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(text->query, "meet @ noon");
  auto not_all_options = ParseQueryName("x@k=5,bogus");
  ASSERT_TRUE(not_all_options.ok());
  EXPECT_EQ(not_all_options->query, "x@k=5,bogus");
  EXPECT_EQ(not_all_options->k, 10u);
  auto bad_where = ParseQueryName("x@where=novalue");
  ASSERT_TRUE(bad_where.ok());
  EXPECT_EQ(bad_where->query, "x@where=novalue");
}

// A bad k is reported even where the rest would make the '@' text: "x@k=0"
// is far likelier a mistake than a search for those characters.
TEST(QueryNameTest, BadNamesAreRefusedSayingWhy) {
  struct Case {
    const char* name;
    const char* says;
  };
  for (const Case& c : {Case{"x@k=0", "k must be 1-1000"}, Case{"x@k=1001,bogus", "k must be"},
                        Case{"%zz", "bad %XX escape"}, Case{"   ", "empty"},
                        Case{"@k=3", "empty"}}) {
    auto parsed = ParseQueryName(c.name);
    ASSERT_FALSE(parsed.ok()) << c.name;
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument) << c.name;
    EXPECT_NE(parsed.status().message().find(c.says), std::string::npos)
        << c.name << ": " << parsed.status().ToString();
  }
}

TEST(QueryNameTest, SeedsParseAndTheirDamageIsAnsweredCleanly) {
  for (const std::string& seed : QueryNameSeeds()) {
    ASSERT_TRUE(ParseQueryName(seed).ok()) << seed;
    EXPECT_EQ(CheckQueryName(seed), "") << seed;
    for (size_t n = 0; n < seed.size(); ++n) {
      ASSERT_EQ(CheckQueryName(seed.substr(0, n)), "") << seed << " cut to " << n;
    }
    for (size_t i = 0; i < seed.size(); ++i) {
      for (int bit = 0; bit < 8; ++bit) {
        std::string changed = seed;
        changed[i] = static_cast<char>(changed[i] ^ (1 << bit));
        ASSERT_EQ(CheckQueryName(changed), "") << seed << " byte " << i << " bit " << bit;
      }
    }
  }
}

TEST(QueryNameTest, SavedInputsKeepEveryPromise) {
  vexfs::fuzz::ReplaySavedInputs(VEXFS_QUERY_NAME_REGRESSIONS_DIR,
                                 [](const std::string& bytes) { return CheckQueryName(bytes); });
}

}  // namespace
}  // namespace vexfs::fuse::fuzz
