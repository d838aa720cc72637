// The exec embedder inside the whole indexing path: a store indexed through an
// external process is searchable, and an embedder that misbehaves mid-batch
// writes nothing (no vectors, no passages) and leaves its work queued.
#include <gtest/gtest.h>

#include "exec_embedder_test_util.h"
#include "test_util.h"
#include "vexfs/index.h"

namespace vexfs {
namespace {

using index::exec_test::Fake;

class ExecIndexTest : public test::StoreTest {
 protected:
  std::unique_ptr<Index> OpenWith(const std::string& spec) {
    IndexOptions options;
    options.embedder = spec;
    auto index = Index::Open(&store(), options);
    EXPECT_TRUE(index.ok()) << index.status().ToString();
    return index.ok() ? std::move(*index) : nullptr;
  }
};

TEST_F(ExecIndexTest, FilesAreIndexedAndSearchedThroughTheProcess) {
  ASSERT_OK(Put("a.txt", "aaaa"));
  ASSERT_OK(Put("b.txt", "bbbbbbbbbbbbbbbb"));
  auto index = OpenWith("exec:" + Fake("good 4"));
  ASSERT_NE(index, nullptr);
  ASSERT_OK(index->Wait());
  ASSIGN_OR_FAIL(IndexStatus status, index->GetStatus());
  EXPECT_EQ(status.queued, 0u);
  ASSERT_EQ(status.models.size(), 2u);  // the exec model and the lexical one
  EXPECT_EQ(status.models[0].kind, "embedded");
  EXPECT_EQ(status.models[0].dim, 4u);
  EXPECT_EQ(status.models[0].vectors, 2u);
  EXPECT_EQ(status.models[1].kind, "lexical");
  // The fake's vectors start with the byte length: a 16-byte query is nearest to
  // b.txt by inner product.
  SearchRequest r;
  r.mode = SearchMode::kDense;
  r.query = "bbbbbbbbbbbbbbbb";
  r.k = 1;
  ASSIGN_OR_FAIL(SearchResult res, index->Search(r));
  ASSERT_EQ(res.hits.size(), 1u);
  EXPECT_EQ(res.hits[0].path, "b.txt");
}

TEST_F(ExecIndexTest, AMisbehavingEmbedderWritesNothingAndKeepsTheQueue) {
  ASSERT_OK(Put("fine.txt", "fine text"));
  ASSERT_OK(Put("bad.txt", "__nan__"));
  auto index = OpenWith("exec:" + Fake("good 4"));
  ASSERT_NE(index, nullptr);
  Status st = index->Wait();
  EXPECT_EQ(st.code(), StatusCode::kIOError) << st.ToString();
  ASSIGN_OR_FAIL(IndexStatus status, index->GetStatus());
  EXPECT_EQ(status.queued, 2u);  // the batch held both files: neither was taken off
  for (const ModelStatus& m : status.models) EXPECT_EQ(m.vectors, 0u);
  // Once the bad content is gone, the same queue drains.
  ASSERT_OK(Put("bad.txt", "now fine"));
  ASSERT_OK(index->Wait());
  ASSIGN_OR_FAIL(IndexStatus after, index->GetStatus());
  EXPECT_EQ(after.queued, 0u);
  ASSERT_EQ(after.models.size(), 2u);
  EXPECT_EQ(after.models[0].vectors, 2u);
  EXPECT_EQ(after.models[1].kind, "lexical");
  EXPECT_EQ(after.models[1].vectors, 2u);  // one lexical record per distinct passage
}

TEST_F(ExecIndexTest, AnEmbedderThatCannotStartIsRefusedUpFront) {
  IndexOptions options;
  options.embedder = "exec:" + Fake("exit-now");
  EXPECT_CODE(Index::Open(&store(), options), StatusCode::kIOError);
  EXPECT_CODE(Index::SetEmbedder(&store(), "exec:"), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace vexfs
