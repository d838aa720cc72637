// No search builds an HNSW graph: the catch-up builds and publishes it, and a
// search before, during or after a build answers like the exact reference.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "test_util.h"
#include "vexfs/db.h"
#include "vexfs/index.h"

namespace vexfs {
namespace {

using test::StoreTest;

constexpr int kFiles = 1200;
constexpr int kQueries = 12;
constexpr int kDim = 8;
constexpr std::string_view kModel = "points";

// Every search through the graph, with a beam as wide as the store, so the graph
// finds what an exact scan finds and any difference is the build's.
IndexOptions GraphOnly() {
  IndexOptions options;
  options.exact_max_visible = 0;
  options.hnsw_ef_search = 2 * kFiles;
  return options;
}

class GraphBuildTest : public StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    for (int q = 0; q < kQueries; ++q) queries_.push_back(RandomVector());
  }

  // Random points, so no two scores tie and every answer has one right order.
  std::vector<float> RandomVector() {
    std::normal_distribution<float> normal;
    std::vector<float> v(kDim);
    for (float& x : v) x = normal(rng_);
    return v;
  }

  // Files [from, to), each with an agent-supplied vector (ids in file order).
  void PutFiles(int from, int to) {
    std::vector<SuppliedVector> vectors;
    for (int i = from; i < to; ++i) {
      std::string path = "n/" + std::to_string(i) + ".txt";
      ASSERT_OK(Put(path, "note " + std::to_string(i)));
      vectors.push_back({path, std::nullopt, RandomVector()});
    }
    auto index = Index::Open(&store(), {});
    ASSERT_TRUE(index.ok());
    ASSERT_OK((*index)->SetVectors(kModel, VectorMetric::kL2, vectors));
  }

  static Result<SearchResult> Query(Index& index, const std::vector<float>& vector) {
    SearchRequest r;
    r.mode = SearchMode::kDense;
    r.model = std::string(kModel);
    r.vector = vector;
    r.k = 10;
    return index.Search(r);
  }

  static std::vector<std::string> PathsOf(const SearchResult& result) {
    std::vector<std::string> out;
    for (const SearchHit& h : result.hits) out.push_back(h.path);
    return out;
  }

  // The exact answers of every query, from an index that never uses a graph.
  std::vector<std::vector<std::string>> Reference() {
    IndexOptions exact;
    exact.exact_max_visible = 1u << 30;
    auto index = Index::Open(&store(), exact);
    EXPECT_TRUE(index.ok());
    std::vector<std::vector<std::string>> out;
    for (const std::vector<float>& q : queries_) {
      auto result = Query(**index, q);
      EXPECT_TRUE(result.ok()) << result.status().ToString();
      out.push_back(result.ok() ? PathsOf(*result) : std::vector<std::string>{});
      EXPECT_EQ(out.back().size(), 10u);
    }
    return out;
  }

  // Runs every query on `index`; the methods used are added to `methods`.
  void ExpectReference(Index& index, const std::vector<std::vector<std::string>>& reference,
                       std::set<std::string>* methods, const std::string& moment) {
    for (size_t q = 0; q < queries_.size(); ++q) {
      auto result = Query(index, queries_[q]);
      ASSERT_TRUE(result.ok()) << moment << ": " << result.status().ToString();
      EXPECT_EQ(PathsOf(*result), reference[q]) << moment << ", query " << q;
      methods->insert(result->method);
    }
  }

  // Whether a graph checkpoint exists.
  bool GraphCheckpointed() {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(store_path() + "/index", ec)) {
      if (e.path().extension() == ".faiss") return true;
    }
    return false;
  }

  std::mt19937 rng_{7};
  std::vector<std::vector<float>> queries_;
};

TEST_F(GraphBuildTest, ASearchBuildsNoGraphAndScansExactlyInstead) {
  PutFiles(0, kFiles);
  auto index = Index::Open(&store(), GraphOnly());
  ASSERT_TRUE(index.ok());
  auto reference = Reference();
  std::set<std::string> methods;
  ExpectReference(**index, reference, &methods, "before any build");
  EXPECT_EQ(methods, std::set<std::string>{"exact"});
  EXPECT_FALSE(GraphCheckpointed()) << "a search wrote a graph";
  ASSERT_OK((*index)->CatchUp());
  EXPECT_TRUE(GraphCheckpointed()) << "the catch-up did not checkpoint";
  methods.clear();
  ExpectReference(**index, reference, &methods, "after the build");
  EXPECT_EQ(methods, std::set<std::string>{"hnsw"});
}

TEST_F(GraphBuildTest, QueriesDuringABuildEqualTheReferenceAtStartMiddleAndEnd) {
  // A graph over the first half, published and checkpointed; the second half
  // is indexed (in the log) but not in the graph.
  PutFiles(0, kFiles / 2);
  auto index = Index::Open(&store(), GraphOnly());
  ASSERT_TRUE(index.ok());
  ASSERT_OK((*index)->CatchUp());
  PutFiles(kFiles / 2, kFiles);
  auto reference = Reference();

  std::set<std::string> methods;
  ExpectReference(**index, reference, &methods, "start: half the log in the graph");
  EXPECT_EQ(methods, std::set<std::string>{"hnsw"});

  // Middle: the build of the rest runs on another thread while queries run.
  std::atomic<bool> building{true};
  Status built;
  std::thread builder([&] {
    built = (*index)->CatchUp();
    building = false;
  });
  int during = 0;
  while (building) {
    ExpectReference(**index, reference, &methods, "middle: during the build");
    ++during;
  }
  builder.join();
  ASSERT_OK(built);
  EXPECT_GT(during, 0);

  // End: the whole log in the graph, and in its checkpoint for the next process.
  ExpectReference(**index, reference, &methods, "end: the build published");
  auto reopened = Index::Open(&store(), GraphOnly());
  ASSERT_TRUE(reopened.ok());
  methods.clear();
  ExpectReference(**reopened, reference, &methods, "end: a new process, from the checkpoint");
  EXPECT_EQ(methods, std::set<std::string>{"hnsw"});
}

TEST_F(GraphBuildTest, AFewNewVectorsJoinThePublishedGraphInPlace) {
  PutFiles(0, kFiles - 3);
  auto index = Index::Open(&store(), GraphOnly());
  ASSERT_TRUE(index.ok());
  ASSERT_OK((*index)->CatchUp());
  PutFiles(kFiles - 3, kFiles);
  ASSERT_OK((*index)->CatchUp());
  std::set<std::string> methods;
  ExpectReference(**index, Reference(), &methods, "after growing in place");
  EXPECT_EQ(methods, std::set<std::string>{"hnsw"});
}

TEST_F(GraphBuildTest, ADbBuildsTheGraphInTheBackgroundAndWaitIndexedBuildsItToo) {
  PutFiles(0, kFiles);
  std::string path = store_path();
  tree_.reset();  // the Db opens the store itself, and a process opens it once
  store_.reset();
  DbOptions options = DefaultDbOptions();
  options.index = GraphOnly();
  {
    // The background threads drain and build without anyone asking.
    auto db = Db::Open(path, options);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    std::string method;
    for (int tries = 0; tries < 600 && method != "hnsw"; ++tries) {
      SearchRequest r;
      r.mode = SearchMode::kDense;
      r.model = std::string(kModel);
      r.vector = queries_[0];
      auto result = (*db)->Search(r, /*wait=*/false);
      ASSERT_TRUE(result.ok()) << result.status().ToString();
      method = result->method;
      if (method != "hnsw") std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_EQ(method, "hnsw") << "no graph was built in 30 s";
  }
  std::filesystem::remove_all(path + "/index");
  options.background_indexing = false;
  auto db = Db::Open(path, options);
  ASSERT_TRUE(db.ok());
  ASSERT_OK((*db)->WaitIndexed());
  EXPECT_TRUE(GraphCheckpointed());
}

}  // namespace
}  // namespace vexfs
