// Merging the dense and lexical rankings (src/index/search/fusion.cc): reciprocal rank
// fusion and min-max mixing, matching by file or by passage, the passage shown,
// ties, and k.
#include "index/search/fusion.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace vexfs::index {
namespace {

// A catalog of files a..e, each with two passages of 10 bytes.
class FusionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* path : {"a", "b", "c", "d", "e"}) {
      CatalogFile f;
      f.path = path;
      f.passages = {{0, 10, 0}, {10, 10, 0}};
      catalog_.files.push_back(f);
    }
  }

  // A side ranking (file index, passage index, score), best first.
  SideRanking Side(const std::vector<std::tuple<int, int, float>>& ranked) {
    SideRanking side;
    for (const auto& [file, passage, score] : ranked) {
      const CatalogFile& f = catalog_.files[file];
      side.ranked.push_back({&catalog_, &f, &f.passages[passage], score});
    }
    return side;
  }

  static std::vector<std::string> Paths(const std::vector<FusedResult>& fused) {
    std::vector<std::string> out;
    for (const FusedResult& f : fused) out.push_back(f.shown->file->path);
    return out;
  }

  ViewCatalog catalog_;
};

TEST_F(FusionTest, RrfSumsReciprocalRanksOfBothSides) {
  SideRanking dense = Side({{0, 0, 0.9f}, {1, 0, 0.8f}, {2, 0, 0.7f}});
  SideRanking lexical = Side({{2, 0, 12.0f}, {3, 0, 9.0f}, {0, 0, 1.0f}});
  auto fused = Fuse(dense, lexical, FusionMethod::kRrf, false, 10);
  // a: 1/61 + 1/63; c: 1/63 + 1/61; tie broken by the better single rank, then path.
  ASSERT_EQ(Paths(fused), (std::vector<std::string>{"a", "c", "b", "d"}));
  EXPECT_DOUBLE_EQ(fused[0].score, 1.0 / 61 + 1.0 / 63);
  EXPECT_EQ(fused[0].dense->rank, 1u);
  EXPECT_EQ(fused[0].lexical->rank, 3u);
  EXPECT_FALSE(fused[2].lexical.has_value()) << "b was found by the dense side only";
  EXPECT_FALSE(fused[3].dense.has_value());
}

TEST_F(FusionTest, MixingAveragesMinMaxNormalisedScores) {
  // Scores whose normalised values are exact in binary.
  SideRanking dense = Side({{0, 0, 1.0f}, {1, 0, 0.5f}, {2, 0, 0.0f}});
  SideRanking lexical = Side({{1, 0, 30.0f}, {0, 0, 20.0f}, {2, 0, 10.0f}});
  auto fused = Fuse(dense, lexical, FusionMethod::kScoreMix, false, 10);
  // a: 0.5*1 + 0.5*0.5 = 0.75; b: 0.5*0.5 + 0.5*1 = 0.75; c: 0.
  ASSERT_EQ(fused.size(), 3u);
  EXPECT_DOUBLE_EQ(fused[0].score, 0.75);
  EXPECT_DOUBLE_EQ(fused[1].score, 0.75);
  EXPECT_DOUBLE_EQ(fused[2].score, 0.0);
  EXPECT_EQ(fused[2].shown->file->path, "c");
}

TEST_F(FusionTest, PassagesAreMatchedByRangeAndTheBetterSideShowsItsPassage) {
  SideRanking dense = Side({{0, 1, 0.9f}});
  SideRanking lexical = Side({{4, 0, 5.0f}, {0, 0, 4.0f}});
  // By file: a's two passages are one result, shown with the dense side's
  // passage (rank 1 there, rank 2 lexically).
  auto by_file = Fuse(dense, lexical, FusionMethod::kRrf, false, 10);
  ASSERT_EQ(by_file[0].shown->file->path, "a");
  EXPECT_EQ(by_file[0].shown->passage->offset, 10u);
  // By passage: they are two results.
  auto by_passage = Fuse(dense, lexical, FusionMethod::kRrf, true, 10);
  EXPECT_EQ(by_passage.size(), 3u);
}

TEST_F(FusionTest, KCutsTheListAndEmptySidesAreFine) {
  SideRanking dense = Side({{0, 0, 0.9f}, {1, 0, 0.8f}, {2, 0, 0.7f}});
  EXPECT_EQ(Fuse(dense, SideRanking{}, FusionMethod::kRrf, false, 2).size(), 2u);
  EXPECT_EQ(Paths(Fuse(SideRanking{}, dense, FusionMethod::kScoreMix, false, 10)),
            (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(Fuse(SideRanking{}, SideRanking{}, FusionMethod::kRrf, false, 10).empty());
}

}  // namespace
}  // namespace vexfs::index
