// Recall of the HNSW path at the default settings against exact search, on
// 100k clustered vectors held in a store's vector log.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <vector>

#include "common/sha256.h"
#include "index/dense/vector_index.h"
#include "index/dense/vector_log.h"
#include "index/model_registry.h"
#include "index/search/top_k.h"
#include "test_util.h"
#include "vexfs/extension.h"

namespace vexfs::index {
namespace {

constexpr uint32_t kDim = 64;
constexpr uint64_t kVectors = 100000;
constexpr int kClusters = 200;
constexpr int kQueries = 200;
constexpr size_t kK = 10;

// Gaussian clusters around random unit centres, then L2-normalised (as text
// embeddings are), so inner product ranks like cosine.
std::vector<float> Centres(std::mt19937_64& rng) {
  std::normal_distribution<float> gauss(0.0f, 1.0f);
  std::vector<float> centres(kClusters * kDim);
  for (float& c : centres) c = gauss(rng);
  return centres;
}

// Queries come from the same clusters as the data, as an agent's questions
// come from the topics it wrote about.
std::vector<float> ClusteredVectors(const std::vector<float>& centres, uint64_t n,
                                    std::mt19937_64& rng) {
  std::normal_distribution<float> gauss(0.0f, 1.0f);
  std::vector<float> out(n * kDim);
  for (uint64_t i = 0; i < n; ++i) {
    const float* c = &centres[(rng() % kClusters) * kDim];
    float norm = 0;
    for (uint32_t d = 0; d < kDim; ++d) {
      out[i * kDim + d] = c[d] + 0.35f * gauss(rng);
      norm += out[i * kDim + d] * out[i * kDim + d];
    }
    for (uint32_t d = 0; d < kDim; ++d) out[i * kDim + d] /= std::sqrt(norm);
  }
  return out;
}

TEST(RecallTest, HnswRecallAt10IsAtLeast95PercentOn100kVectors) {
  test::TempDir dir;
  auto store = test::CreateStoreOrDie(dir.Sub("store"));
  Store* impl = store.get();
  ASSIGN_OR_FAIL(index::IndexTables ix, index::SearchTables(impl));
  std::mt19937_64 rng(42);
  std::vector<float> centres = Centres(rng);
  std::vector<float> data = ClusteredVectors(centres, kVectors, rng);
  ModelRecord model;
  {
    StoreTxn txn;
    ASSERT_OK(txn.Begin(impl, true));
    ModelInfo info{"bench-64", kDim, Metric::kInnerProduct, "synthetic"};
    ASSIGN_OR_FAIL(model, RegisterModel(&txn, ix, info, ModelKind::kSupplied));
    for (uint64_t i = 0; i < kVectors; ++i) {
      ObjectId hash = Sha256Of("v" + std::to_string(i));
      ASSERT_OK(AppendVector(&txn, ix, &model, hash, &data[i * kDim]).status());
    }
    ASSERT_OK(SaveModel(&txn, ix, model));
    ASSERT_OK(txn.Commit());
  }
  ASSIGN_OR_FAIL(auto ann, VectorIndex::Open(impl, model, dir.Sub("ann"), HnswParams{}));
  ASSERT_EQ(ann->size(), kVectors);
  std::vector<uint8_t> all((kVectors + 7) / 8, 0xff);
  std::vector<float> queries = ClusteredVectors(centres, kQueries, rng);
  size_t found = 0;
  for (int q = 0; q < kQueries; ++q) {
    const float* query = &queries[q * kDim];
    TopK exact(kK);
    for (uint64_t i = 0; i < kVectors; ++i) {
      exact.Offer(i, Similarity(Metric::kInnerProduct, query, &data[i * kDim], kDim));
    }
    std::set<uint64_t> truth;
    for (const ScoredId& s : exact.Take()) truth.insert(s.id);
    ASSIGN_OR_FAIL(auto got, ann->Search(query, kK, all, HnswParams{}.ef_search));
    for (const ScoredId& s : got) found += truth.count(s.id);
  }
  double recall = double(found) / double(kQueries * kK);
  RecordProperty("recall_at_10", std::to_string(recall));
  EXPECT_GE(recall, 0.95);
}

}  // namespace
}  // namespace vexfs::index
