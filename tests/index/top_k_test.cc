// Tests for exact scoring: Similarity under both metrics, and TopK keeping the k
// best ids, best first, with ties going to the smaller id whatever the order in
// which candidates were offered.
#include "index/search/top_k.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace vexfs::index {
namespace {

std::vector<uint64_t> Ids(const std::vector<ScoredId>& results) {
  std::vector<uint64_t> ids;
  for (const ScoredId& r : results) ids.push_back(r.id);
  return ids;
}

// What TopK must return: everything sorted best first (score down, id up), cut to k.
std::vector<ScoredId> Reference(std::vector<ScoredId> all, size_t k) {
  std::sort(all.begin(), all.end(), [](const ScoredId& a, const ScoredId& b) {
    return a.score != b.score ? a.score > b.score : a.id < b.id;
  });
  if (all.size() > k) all.resize(k);
  return all;
}

std::vector<ScoredId> Select(size_t k, const std::vector<ScoredId>& offers) {
  TopK top(k);
  for (const ScoredId& o : offers) top.Offer(o.id, o.score);
  return top.Take();
}

TEST(TopKTest, KeepsTheKBestBestFirst) {
  std::vector<ScoredId> results =
      Select(3, {{1, 0.1f}, {2, 0.9f}, {3, 0.5f}, {4, 0.7f}, {5, 0.3f}, {6, 0.8f}});
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(Ids(results), (std::vector<uint64_t>{2, 6, 4}));
  EXPECT_EQ(results[0].score, 0.9f);
  EXPECT_EQ(results[1].score, 0.8f);
  EXPECT_EQ(results[2].score, 0.7f);
}

TEST(TopKTest, KLargerThanOfferedReturnsEverythingSorted) {
  std::vector<ScoredId> results = Select(10, {{3, 0.2f}, {1, 0.6f}, {2, -0.4f}});
  EXPECT_EQ(Ids(results), (std::vector<uint64_t>{1, 3, 2}));
}

TEST(TopKTest, NothingOfferedGivesNothing) { EXPECT_TRUE(Select(5, {}).empty()); }

TEST(TopKTest, KZeroKeepsNothing) {
  EXPECT_TRUE(Select(0, {{1, 1.0f}, {2, 2.0f}}).empty());
}

TEST(TopKTest, TiesGoToTheSmallerId) {
  EXPECT_EQ(Ids(Select(2, {{5, 1.0f}, {3, 1.0f}, {9, 1.0f}, {1, 0.5f}})),
            (std::vector<uint64_t>{3, 5}));
  EXPECT_EQ(Ids(Select(4, {{7, 0.0f}, {2, 0.0f}, {4, 0.0f}})), (std::vector<uint64_t>{2, 4, 7}));
}

TEST(TopKTest, EqualScoreWithSmallerIdDisplacesTheLargerId) {
  TopK top(1);
  top.Offer(10, 0.5f);
  top.Offer(3, 0.5f);
  top.Offer(20, 0.5f);
  std::vector<ScoredId> results = top.Take();
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].id, 3u);
}

TEST(TopKTest, NegativeScoresRankHigherWhenLessNegative) {
  // L2 scores are negated squared distances.
  EXPECT_EQ(Ids(Select(2, {{1, -4.0f}, {2, -0.25f}, {3, -1.0f}, {4, -9.0f}})),
            (std::vector<uint64_t>{2, 3}));
}

TEST(TopKTest, ExtremeScoresAndIds) {
  const uint64_t kMaxId = std::numeric_limits<uint64_t>::max();
  const float kInf = std::numeric_limits<float>::infinity();
  std::vector<ScoredId> results =
      Select(3, {{kMaxId, 1.0f}, {0, 1.0f}, {5, -kInf}, {6, kInf}, {7, -1.0f}});
  EXPECT_EQ(Ids(results), (std::vector<uint64_t>{6, 0, kMaxId}));
}

TEST(TopKTest, TakeEmptiesItAndItCanBeReused) {
  TopK top(2);
  top.Offer(1, 1.0f);
  top.Offer(2, 2.0f);
  EXPECT_EQ(Ids(top.Take()), (std::vector<uint64_t>{2, 1}));
  EXPECT_TRUE(top.Take().empty());
  top.Offer(3, 0.5f);
  EXPECT_EQ(Ids(top.Take()), (std::vector<uint64_t>{3}));
}

// Many ties among few score values, offered in random orders: every order must
// give the one reference answer.
TEST(TopKTest, ResultDoesNotDependOnOfferOrder) {
  std::mt19937 rng(31337);
  for (int round = 0; round < 200; ++round) {
    size_t n = std::uniform_int_distribution<size_t>(0, 60)(rng);
    size_t k = std::uniform_int_distribution<size_t>(0, 70)(rng);
    std::vector<ScoredId> offers;
    std::vector<uint64_t> ids(n);
    for (size_t i = 0; i < n; ++i) ids[i] = i * 7 + 3;
    std::shuffle(ids.begin(), ids.end(), rng);
    std::uniform_int_distribution<int> level(-3, 3);
    for (uint64_t id : ids) offers.push_back({id, level(rng) * 0.25f});
    std::vector<uint64_t> expected = Ids(Reference(offers, k));
    for (int order = 0; order < 5; ++order) {
      std::shuffle(offers.begin(), offers.end(), rng);
      ASSERT_EQ(Ids(Select(k, offers)), expected) << "round " << round << " order " << order;
    }
  }
}

TEST(SimilarityTest, InnerProduct) {
  float a[] = {1.0f, 2.0f, 3.0f};
  float b[] = {4.0f, -5.0f, 0.5f};
  EXPECT_FLOAT_EQ(Similarity(Metric::kInnerProduct, a, b, 3), 4.0f - 10.0f + 1.5f);
  EXPECT_FLOAT_EQ(Similarity(Metric::kInnerProduct, a, a, 3), 14.0f);
}

TEST(SimilarityTest, L2IsTheNegatedSquaredDistance) {
  float a[] = {1.0f, 2.0f, 3.0f};
  float b[] = {4.0f, 6.0f, 3.0f};
  EXPECT_FLOAT_EQ(Similarity(Metric::kL2, a, b, 3), -25.0f);
  EXPECT_FLOAT_EQ(Similarity(Metric::kL2, b, a, 3), -25.0f);
  EXPECT_EQ(Similarity(Metric::kL2, a, a, 3), 0.0f);
}

TEST(SimilarityTest, CloserScoresHigherUnderL2) {
  float query[] = {0.0f, 0.0f};
  float near[] = {1.0f, 1.0f};
  float far[] = {3.0f, -2.0f};
  EXPECT_GT(Similarity(Metric::kL2, query, near, 2), Similarity(Metric::kL2, query, far, 2));
}

TEST(SimilarityTest, OnlyTheFirstDimValuesCount) {
  float a[] = {1.0f, 1.0f, 100.0f};
  float b[] = {2.0f, 3.0f, -100.0f};
  EXPECT_FLOAT_EQ(Similarity(Metric::kInnerProduct, a, b, 2), 5.0f);
  EXPECT_FLOAT_EQ(Similarity(Metric::kL2, a, b, 2), -5.0f);
  EXPECT_EQ(Similarity(Metric::kInnerProduct, a, b, 0), 0.0f);
  EXPECT_EQ(Similarity(Metric::kL2, a, b, 0), 0.0f);
}

// For unit vectors |a-b|^2 = 2 - 2 a.b, so both metrics rank neighbours alike.
TEST(SimilarityTest, MetricsAgreeOnUnitVectors) {
  std::mt19937 rng(5);
  std::normal_distribution<float> gauss;
  auto unit = [&](uint32_t dim) {
    std::vector<float> v(dim);
    double norm = 0;
    for (float& x : v) {
      x = gauss(rng);
      norm += double{x} * x;
    }
    for (float& x : v) x = static_cast<float>(x / std::sqrt(norm));
    return v;
  };
  for (int round = 0; round < 50; ++round) {
    std::vector<float> a = unit(32), b = unit(32);
    float ip = Similarity(Metric::kInnerProduct, a.data(), b.data(), 32);
    float l2 = Similarity(Metric::kL2, a.data(), b.data(), 32);
    EXPECT_NEAR(l2, 2 * ip - 2, 1e-4) << "round " << round;
  }
}

}  // namespace
}  // namespace vexfs::index
