// Names under .vexfs/search/ (src/fuse/query_name.cc): the query, its options,
// percent-decoding, and the rule that only a valid option list splits a name.
#include "fuse/query_name.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace vexfs::fuse {
namespace {

TEST(QueryNameTest, APlainNameIsTheWholeQuery) {
  ASSIGN_OR_FAIL(SearchRequest r, ParseQueryName("rolling back a release"));
  EXPECT_EQ(r.query, "rolling back a release");
  EXPECT_EQ(r.k, SearchRequest{}.k);
  EXPECT_TRUE(r.under.empty());
}

TEST(QueryNameTest, OptionsAfterTheLastAtAreApplied) {
  ASSIGN_OR_FAIL(SearchRequest r,
                 ParseQueryName("helm rollback@k=3,under=notes%2Fops,where=team=infra,passages,"
                                "mode=lexical,fusion=mix,feedback,at=before-replan"));
  EXPECT_EQ(r.query, "helm rollback");
  EXPECT_EQ(r.k, 3u);
  EXPECT_EQ(r.under, "notes/ops");
  EXPECT_EQ(r.where.at("team"), "infra");
  EXPECT_TRUE(r.passages);
  EXPECT_TRUE(r.feedback);
  EXPECT_EQ(r.mode, SearchMode::kLexical);
  EXPECT_EQ(r.fusion, FusionMethod::kScoreMix);
  EXPECT_EQ(r.snapshot, "before-replan");
}

TEST(QueryNameTest, AnAtThatIsNotFollowedByOptionsBelongsToTheQuery) {
  ASSIGN_OR_FAIL(SearchRequest r, ParseQueryName("meet @ noon"));
  EXPECT_EQ(r.query, "meet @ noon");
  ASSIGN_OR_FAIL(SearchRequest escaped, ParseQueryName("mail a%40b.c%2C please@k=2"));
  EXPECT_EQ(escaped.query, "mail a@b.c, please");
  EXPECT_EQ(escaped.k, 2u);
}

TEST(QueryNameTest, BadOptionsAndEmptyQueriesAreRefusedByName) {
  // An unknown option is no option list: the name is the query, as written.
  ASSIGN_OR_FAIL(SearchRequest unknown, ParseQueryName("q@mode=fuzzy"));
  EXPECT_EQ(unknown.query, "q@mode=fuzzy");
  for (const char* bad : {"q@k=0", "q@k=1001", "q@k=x", "@k=3", "q%zz@k=3", "   "}) {
    auto parsed = ParseQueryName(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument) << bad;
  }
}

}  // namespace
}  // namespace vexfs::fuse
