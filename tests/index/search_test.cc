// Search over views: the working tree and snapshots, filters, per-file grouping,
// deduplicated embedding, models and bad input. Small stores, so both the exact
// path and (forced by exact_max_visible = 0) the HNSW path are exercised.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "db/background_indexer.h"
#include "index/embedders/hash_embedder.h"
#include "index/indexing/passages.h"
#include "index/search/top_k.h"
#include "test_util.h"
#include "vexfs/index.h"

namespace vexfs {
namespace {

using test::StoreTest;

// Options that send every search through the HNSW graph.
IndexOptions AlwaysHnsw() {
  IndexOptions options;
  options.exact_max_visible = 0;
  return options;
}

// This suite checks the dense side against references computed from vectors;
// lexical and hybrid search have their own suite (lexical_search_test.cc).
SearchRequest Dense() {
  SearchRequest r;
  r.mode = SearchMode::kDense;
  return r;
}

IndexOptions WithEmbedder(std::string spec) {
  IndexOptions options;
  options.embedder = std::move(spec);
  return options;
}

class SearchTest : public StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    // The references below embed with the hash embedder, whatever the default is.
    ASSERT_OK(Index::SetEmbedder(&store(), "hash"));
    OpenIndex({});
    ASSERT_OK(index_->Wait());  // choosing the embedder queued the (empty) branch
  }

  void OpenIndex(const IndexOptions& options) {
    index_.reset();
    auto index = Index::Open(&store(), options);
    ASSERT_TRUE(index.ok()) << index.status().ToString();
    index_ = std::move(*index);
  }

  // Paths of the hits, best first.
  std::vector<std::string> Paths(const SearchRequest& request) {
    auto result = index_->Search(request);
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    std::vector<std::string> out;
    if (result.ok()) {
      for (const SearchHit& h : result->hits) out.push_back(h.path);
    }
    return out;
  }

  std::vector<std::string> Paths(std::string query, size_t k = 10) {
    SearchRequest r = Dense();
    r.query = std::move(query);
    r.k = k;
    return Paths(r);
  }

  uint64_t VectorCount() {
    auto status = index_->GetStatus();
    EXPECT_TRUE(status.ok());
    uint64_t n = 0;
    if (status.ok()) {
      for (const ModelStatus& m : status->models) n += m.kind == "lexical" ? 0 : m.vectors;
    }
    return n;
  }

  void PutNotes() {
    ASSERT_OK(Put("notes/deploy.md",
                  "# Deployment\n\nRolling back a release uses helm rollback with the "
                  "previous revision number on the staging cluster."));
    ASSERT_OK(Put("notes/shopping.txt", "Grocery list: apples, bread, oat milk, coffee beans."));
    ASSERT_OK(Put("notes/budget.md",
                  "Meeting with Dana about the quarterly budget; travel costs must drop."));
    ASSERT_OK(Put("archive/old-deploy.md",
                  "An old runbook: deploy with a shell script from the laptop."));
  }

  std::unique_ptr<Index> index_;
};

TEST_F(SearchTest, FindsANoteFromAQuerySharingAFewWords) {
  PutNotes();
  ASSERT_OK(index_->Wait());
  auto paths = Paths("how do I roll back a helm release", 2);
  ASSERT_EQ(paths.size(), 2u);
  EXPECT_EQ(paths[0], "notes/deploy.md");
}

// Hits of equal score are listed by path, whatever order the files were
// indexed in (the rankers break ties by store-local passage ids): two stores
// holding the same snapshot, as after an agent moved, answer alike, and keep
// the same hits where k cuts through the tie. The texts differ (identical ones
// would share one passage) but score alike: the same length and the same
// counts of the query's words.
TEST_F(SearchTest, EqualScoresAreListedByPathNotByIndexingOrder) {
  const std::vector<std::pair<const char*, const char*>> files = {
      {"c.txt", "the lighthouse keeper logs the fog horn schedule charlie"},
      {"b.txt", "the lighthouse keeper logs the fog horn schedule bravoo"},
      {"a.txt", "the lighthouse keeper logs the fog horn schedule alphaa"}};
  for (const auto& [path, text] : files) {
    ASSERT_OK(Put(path, text));
    ASSERT_OK(index_->Wait());  // each indexed alone: ids in c, b, a order
  }
  SearchRequest lexical;
  lexical.mode = SearchMode::kLexical;
  lexical.query = "lighthouse fog horn";
  auto all = index_->Search(lexical);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->hits.size(), 3u);
  ASSERT_EQ(all->hits[0].score, all->hits[2].score) << "the texts must tie for this test to mean anything";
  EXPECT_EQ(Paths(lexical), std::vector<std::string>({"a.txt", "b.txt", "c.txt"}));
  lexical.k = 2;
  EXPECT_EQ(Paths(lexical), std::vector<std::string>({"a.txt", "b.txt"}));
  lexical.k = 1;
  EXPECT_EQ(Paths(lexical), std::vector<std::string>({"a.txt"}));
}

TEST_F(SearchTest, WritesQueueWorkAndWaitDrainsIt) {
  PutNotes();
  ASSIGN_OR_FAIL(IndexStatus before, index_->GetStatus());
  EXPECT_EQ(before.queued, 4u);
  // Nothing is searchable before indexing, and the result says why.
  SearchRequest r = Dense();
  r.query = "helm rollback";
  ASSIGN_OR_FAIL(SearchResult early, index_->Search(r));
  EXPECT_TRUE(early.hits.empty());
  EXPECT_EQ(early.unindexed_files, 4u);
  ASSERT_OK(index_->Wait());
  ASSIGN_OR_FAIL(IndexStatus after, index_->GetStatus());
  EXPECT_EQ(after.queued, 0u);
  ASSIGN_OR_FAIL(SearchResult late, index_->Search(r));
  EXPECT_EQ(late.unindexed_files, 0u);
  EXPECT_FALSE(late.hits.empty());
}

TEST_F(SearchTest, BackgroundIndexingMakesWritesSearchableWithoutWaiting) {
  ASSIGN_OR_FAIL(auto watch, CommitWatch::Open(&store()));
  db::BackgroundIndexer indexer(
      [this]() -> Result<Index*> { return index_.get(); },
      [](Index* index, const std::function<bool()>& stop) { return index->Wait(nullptr, stop); },
      std::move(watch), "");
  indexer.Start();
  PutNotes();
  // The thread may have taken the first notes before the last were written: wait
  // for the queue to drain, then every note must be searchable.
  uint64_t queued = 1;
  for (int i = 0; i < 400 && queued > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    ASSIGN_OR_FAIL(IndexStatus status, index_->GetStatus());
    queued = status.queued;
  }
  indexer.Stop();
  EXPECT_EQ(queued, 0u);
  EXPECT_EQ(Paths("helm rollback revision", 1), std::vector<std::string>{"notes/deploy.md"});
  SearchRequest r = Dense();
  r.query = "oat milk";
  ASSIGN_OR_FAIL(SearchResult res, index_->Search(r));
  EXPECT_EQ(res.unindexed_files, 0u);
  EXPECT_EQ(res.hits.size(), 4u);
}

TEST_F(SearchTest, DeletedFileIsFoundAtTheSnapshotOnly) {
  PutNotes();
  ASSERT_OK(index_->Wait());
  ASSERT_OK(Snap("before").status());
  ASSERT_OK(Edit([](TreeEditor& ed) -> Status {
    VEXFS_ASSIGN_OR_RETURN(uint64_t notes, ed.ResolvePath("notes"));
    return ed.Unlink(notes, "deploy.md");
  }));
  // Not even waiting is needed: a deleted file leaves search at once.
  auto now = Paths("helm rollback revision");
  EXPECT_EQ(std::count(now.begin(), now.end(), "notes/deploy.md"), 0);
  SearchRequest r = Dense();
  r.query = "helm rollback revision";
  r.snapshot = "before";
  auto then = Paths(r);
  ASSERT_FALSE(then.empty());
  EXPECT_EQ(then[0], "notes/deploy.md");
}

TEST_F(SearchTest, ModifiedFileReturnsItsOldPassageAtTheOldSnapshot) {
  ASSERT_OK(Put("plan.md", "The plan: migrate the database to postgres in march."));
  ASSERT_OK(index_->Wait());
  ASSERT_OK(Snap("v1").status());
  ASSERT_OK(Put("plan.md", "The plan changed: keep sqlite, add nightly backups instead."));
  ASSERT_OK(index_->Wait());
  SearchRequest r = Dense();
  r.query = "postgres migration";
  r.snapshot = "v1";
  ASSIGN_OR_FAIL(SearchResult old, index_->Search(r));
  ASSERT_EQ(old.hits.size(), 1u);
  EXPECT_NE(old.hits[0].snippet.find("postgres"), std::string::npos);
  r.snapshot.clear();
  ASSIGN_OR_FAIL(SearchResult now, index_->Search(r));
  ASSERT_EQ(now.hits.size(), 1u);
  EXPECT_NE(now.hits[0].snippet.find("sqlite"), std::string::npos);
}

TEST_F(SearchTest, SnapshotTakenBeforeIndexingGetsItsOwnContentIndexed) {
  ASSERT_OK(Put("idea.txt", "first idea: a vector index of passages"));
  ASSERT_OK(Snap("early").status());  // queue not drained yet
  ASSERT_OK(Put("idea.txt", "second idea: unrelated words entirely"));
  ASSERT_OK(index_->Wait());
  SearchRequest r = Dense();
  r.query = "vector index of passages";
  r.snapshot = "early";
  ASSIGN_OR_FAIL(SearchResult res, index_->Search(r));
  EXPECT_EQ(res.unindexed_files, 0u);
  ASSERT_EQ(res.hits.size(), 1u);
  EXPECT_NE(res.hits[0].snippet.find("first idea"), std::string::npos);
}

TEST_F(SearchTest, FiltersByPathMetadataAndTime) {
  PutNotes();
  ASSERT_OK(Edit([](TreeEditor& ed) -> Status {
    VEXFS_ASSIGN_OR_RETURN(uint64_t shop, ed.ResolvePath("notes/shopping.txt"));
    VEXFS_RETURN_IF_ERROR(ed.SetXattr(shop, MetaXattrName("kind"), "errand"));
    VEXFS_ASSIGN_OR_RETURN(uint64_t old, ed.ResolvePath("archive/old-deploy.md"));
    TreeEditor::AttrChange change;
    change.mtime = TimeNs{1000} * 1000000000;
    return ed.SetAttr(old, change).status();
  }));
  ASSERT_OK(index_->Wait());
  SearchRequest r = Dense();
  r.query = "deploy roll back";
  r.under = "archive";
  EXPECT_EQ(Paths(r), std::vector<std::string>{"archive/old-deploy.md"});
  r.under = "/notes/";
  for (const std::string& p : Paths(r)) EXPECT_TRUE(p.starts_with("notes/")) << p;
  r.under = "note";  // a prefix of a name is not a directory
  EXPECT_TRUE(Paths(r).empty());
  r.under.clear();
  r.where = {{"kind", "errand"}};
  EXPECT_EQ(Paths(r), std::vector<std::string>{"notes/shopping.txt"});
  r.where = {{"kind", "work"}};
  EXPECT_TRUE(Paths(r).empty());
  r.where.clear();
  r.modified_before = TimeNs{2000} * 1000000000;
  EXPECT_EQ(Paths(r), std::vector<std::string>{"archive/old-deploy.md"});
  r.modified_before.reset();
  r.modified_after = TimeNs{2000} * 1000000000;
  EXPECT_EQ(Paths(r).size(), 3u);
}

// The expected answer computed independently: split, embed and score every
// passage of every file that passes `keep`, best passage per file.
std::vector<std::pair<float, std::string>> BruteForce(
    const std::map<std::string, std::string>& files, const std::string& query, size_t k,
    const std::function<bool(const std::string&)>& keep) {
  auto embedder = index::MakeHashEmbedder();
  std::vector<float> q;
  EXPECT_TRUE(embedder->Embed({query}, &q).ok());
  std::vector<std::pair<float, std::string>> scored;
  for (const auto& [path, text] : files) {
    if (!keep(path)) continue;
    float best = -1e30f;
    for (const index::Passage& p : index::SplitPassages(text)) {
      std::vector<float> v;
      EXPECT_TRUE(embedder->Embed({std::string_view(text).substr(p.offset, p.length)}, &v).ok());
      best = std::max(best, index::Similarity(index::Metric::kInnerProduct, q.data(), v.data(),
                                              embedder->info().dim));
    }
    scored.push_back({best, path});
  }
  std::sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  if (scored.size() > k) scored.resize(k);
  return scored;
}

TEST_F(SearchTest, FilteredSearchEqualsBruteForceOverTheFilteredFiles) {
  test::Random rnd(5);
  std::map<std::string, std::string> files;
  std::map<std::string, std::string> team;
  for (int i = 0; i < 240; ++i) {
    std::string path = std::string(1, char('a' + i % 3)) + "/n" + std::to_string(i) + ".md";
    std::string text;
    for (int w = 0; w < 40 + i % 300; ++w) text += rnd.Name(3, 7) + (w % 9 == 8 ? ".\n" : " ");
    files[path] = text;
    ASSERT_OK(Put(path, text));
    if (i % 4 == 0) {
      team[path] = "x";
      ASSERT_OK(Edit([&](TreeEditor& ed) -> Status {
        VEXFS_ASSIGN_OR_RETURN(uint64_t ino, ed.ResolvePath(path));
        return ed.SetXattr(ino, MetaXattrName("team"), "x");
      }));
    }
  }
  ASSERT_OK(index_->Wait());
  std::string query = files["b/n1.md"].substr(0, 30) + " " + files["a/n0.md"].substr(0, 30);
  auto in_b_team_x = [&](const std::string& p) { return p.starts_with("b/") && team.count(p); };
  for (bool meta : {false, true}) {
    SearchRequest r = Dense();
    r.query = query;
    r.k = 7;
    r.under = "b";
    if (meta) r.where = {{"team", "x"}};
    auto want = BruteForce(files, query, r.k, [&](const std::string& p) {
      return meta ? in_b_team_x(p) : p.starts_with("b/");
    });
    ASSIGN_OR_FAIL(SearchResult got, index_->Search(r));
    EXPECT_EQ(got.method, "exact");
    ASSERT_EQ(got.hits.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(got.hits[i].path, want[i].second) << i;
      EXPECT_NEAR(got.hits[i].score, want[i].first, 1e-5) << i;
    }
  }
}

TEST_F(SearchTest, OneHitPerFileUnlessPassagesAreAsked) {
  std::string doc;
  for (int i = 0; i < 6; ++i) {
    doc += "## Section " + std::to_string(i) + "\n\n";
    for (int j = 0; j < 30; ++j) doc += "kubernetes helm rollback note line " + std::to_string(j) + ". ";
    doc += "\n\n";
  }
  ASSERT_OK(Put("long.md", doc));
  ASSERT_OK(Put("short.md", "helm rollback"));
  ASSERT_OK(index_->Wait());
  SearchRequest r = Dense();
  r.query = "helm rollback";
  ASSIGN_OR_FAIL(SearchResult per_file, index_->Search(r));
  EXPECT_EQ(per_file.hits.size(), 2u);
  r.passages = true;
  ASSIGN_OR_FAIL(SearchResult all, index_->Search(r));
  EXPECT_GT(all.hits.size(), 3u);
  std::set<uint64_t> offsets;
  for (const SearchHit& h : all.hits) {
    if (h.path == "long.md") offsets.insert(h.offset);
  }
  EXPECT_EQ(offsets.size(), all.hits.size() - 1);  // distinct passages of long.md
}

TEST_F(SearchTest, UnchangedPassagesAreNeverEmbeddedAgain) {
  std::string a = "## One\n\n" + std::string(1500, 'a') + " alpha words here\n\n";
  std::string b = "## Two\n\n" + std::string(1500, 'b') + " beta words here\n\n";
  ASSERT_OK(Put("doc.md", a + b));
  ASSERT_OK(index_->Wait());
  uint64_t first = VectorCount();
  EXPECT_EQ(first, 2u);
  ASSERT_OK(Put("copy.md", a + b));  // same passages in another file
  ASSERT_OK(store().CreateBranch("other", std::nullopt));
  ASSERT_OK(index_->Wait());
  EXPECT_EQ(VectorCount(), first);
  ASSERT_OK(Put("doc.md", a + "## Two\n\n" + std::string(1500, 'b') + " gamma words here\n\n"));
  ASSERT_OK(index_->Wait());
  EXPECT_EQ(VectorCount(), first + 1);  // only the changed passage
}

TEST_F(SearchTest, BinaryAndInvalidUtf8FilesAreNotIndexed) {
  ASSERT_OK(Put("blob.bin", test::RandomBytes(7, 5000)));
  ASSERT_OK(Put("bad.txt", std::string("valid start \xff\xfe then garbage")));
  ASSERT_OK(Put("good.txt", "valid text about garbage collection"));
  ASSERT_OK(index_->Wait());
  EXPECT_EQ(VectorCount(), 1u);
  EXPECT_EQ(Paths("garbage"), std::vector<std::string>{"good.txt"});
}

TEST_F(SearchTest, BadRequestsGetClearErrors) {
  PutNotes();
  ASSERT_OK(index_->Wait());
  SearchRequest r = Dense();
  EXPECT_CODE(index_->Search(r), StatusCode::kInvalidArgument);  // empty query
  r.query = "x";
  r.k = 0;
  EXPECT_CODE(index_->Search(r), StatusCode::kInvalidArgument);
  r.k = 1000000;
  EXPECT_CODE(index_->Search(r), StatusCode::kInvalidArgument);
  r.k = 5;
  r.snapshot = "missing";
  EXPECT_CODE(index_->Search(r), StatusCode::kNotFound);
  r.snapshot.clear();
  r.branch = "missing";
  EXPECT_CODE(index_->Search(r), StatusCode::kNotFound);
  r.branch.clear();
  r.model = "no-such-model";
  EXPECT_CODE(index_->Search(r), StatusCode::kNotFound);
  r.model.clear();
  r.vector = {1.0f, 2.0f};  // the hash model has 384 dimensions
  EXPECT_CODE(index_->Search(r), StatusCode::kInvalidArgument);
  EXPECT_CODE(Index::Open(&store(), WithEmbedder("word2vec")), StatusCode::kInvalidArgument);
}

TEST_F(SearchTest, SuppliedVectorsAreSearchedByVectorAndValidated) {
  PutNotes();
  ASSERT_OK(index_->SetVector("notes/deploy.md", "agent-v1", {1, 0, 0}));
  ASSERT_OK(index_->SetVector("notes/budget.md", "agent-v1", {0, 1, 0}));
  ASSERT_OK(index_->SetVector("notes/shopping.txt", "agent-v1", {0, 0.9f, 0.1f}));
  SearchRequest r = Dense();
  r.model = "agent-v1";
  r.vector = {0, 1, 0};
  r.k = 2;
  EXPECT_EQ(Paths(r), (std::vector<std::string>{"notes/budget.md", "notes/shopping.txt"}));
  // A text query cannot be embedded into an agent's model.
  r.vector.clear();
  r.query = "budget";
  EXPECT_CODE(index_->Search(r), StatusCode::kInvalidArgument);
  // Wrong dimension, NaN, infinity, unknown path: refused, nothing written.
  uint64_t before = VectorCount();
  EXPECT_CODE(index_->SetVector("notes/deploy.md", "agent-v1", {1, 0}), StatusCode::kInvalidArgument);
  EXPECT_CODE(index_->SetVector("notes/deploy.md", "agent-v1", {NAN, 0, 0}),
              StatusCode::kInvalidArgument);
  EXPECT_CODE(index_->SetVector("notes/deploy.md", "agent-v1", {INFINITY, 0, 0}),
              StatusCode::kInvalidArgument);
  EXPECT_CODE(index_->SetVector("nope.md", "agent-v1", {1, 0, 0}), StatusCode::kNotFound);
  EXPECT_CODE(index_->SetVector("notes/deploy.md", "bad name!", {1, 0, 0}),
              StatusCode::kInvalidArgument);
  EXPECT_CODE(index_->SetVector("notes/deploy.md", "agent-v1", {1, 0, 0}, "", {{5, 1000}}),
              StatusCode::kInvalidArgument);
  EXPECT_EQ(VectorCount(), before);
}

TEST_F(SearchTest, EqualRangesOfDifferentFilesKeepTheirOwnVectors) {
  // Regression: the key of a supplied vector once ignored its values, so a second
  // file with equal bytes in the range silently got the first file's vector.
  ASSERT_OK(Put("a.txt", "same start, then A"));
  ASSERT_OK(Put("b.txt", "same start, then B"));
  std::vector<SuppliedVector> batch = {{"a.txt", std::make_pair(uint64_t{0}, uint64_t{4}), {1, 0}},
                                       {"b.txt", std::make_pair(uint64_t{0}, uint64_t{4}), {0, 1}}};
  ASSERT_OK(index_->SetVectors("pairs", VectorMetric::kL2, batch));
  EXPECT_EQ(VectorCount(), 2u);
  SearchRequest r = Dense();
  r.model = "pairs";
  r.k = 1;
  r.vector = {0, 0.9f};
  EXPECT_EQ(Paths(r), std::vector<std::string>{"b.txt"});
  r.vector = {0.9f, 0};
  EXPECT_EQ(Paths(r), std::vector<std::string>{"a.txt"});
}

TEST_F(SearchTest, SuppliedVectorsSetAfterASnapshotSearchIsCachedAreSeenThere) {
  ASSERT_OK(Put("a.txt", "alpha"));
  ASSERT_OK(Put("b.txt", "beta"));
  ASSERT_OK(Snap("s").status());
  ASSERT_OK(index_->SetVectors("pts", VectorMetric::kL2, {{"a.txt", std::nullopt, {0, 0}}}));
  SearchRequest r = Dense();
  r.model = "pts";
  r.snapshot = "s";
  r.vector = {1, 1};
  EXPECT_EQ(Paths(r), std::vector<std::string>{"a.txt"});  // caches the snapshot's catalog
  // Regression: the cached catalog once hid vectors set after it was built.
  ASSERT_OK(index_->SetVector("b.txt", "pts", {1, 1}));  // the model's metric (L2) is kept
  EXPECT_EQ(Paths(r), (std::vector<std::string>{"b.txt", "a.txt"}));
}

TEST_F(SearchTest, FilesWithEqualContentShareSuppliedVectors) {
  ASSERT_OK(Put("a.txt", "same bytes"));
  ASSERT_OK(Put("b.txt", "same bytes"));
  std::vector<SuppliedVector> batch = {{"a.txt", std::nullopt, {1, 0}},
                                       {"b.txt", std::make_pair(uint64_t{0}, uint64_t{4}), {0, 1}}};
  ASSERT_OK(index_->SetVectors("pairs", VectorMetric::kL2, batch));
  SearchRequest r = Dense();
  r.model = "pairs";
  r.passages = true;
  r.vector = {0, 1};
  ASSIGN_OR_FAIL(SearchResult res, index_->Search(r));
  ASSERT_EQ(res.hits.size(), 4u);  // two passages in each of the two files
  EXPECT_EQ(res.hits[0].length, 4u);
  EXPECT_EQ(res.hits[1].length, 4u);
  // A new vector for the same range of the same content replaces the old one.
  ASSERT_OK(index_->SetVectors("pairs", VectorMetric::kL2, {{"a.txt", std::nullopt, {5, 5}}}));
  r.vector = {1, 0};
  r.passages = false;
  ASSIGN_OR_FAIL(SearchResult after, index_->Search(r));
  ASSERT_EQ(after.hits.size(), 2u);
  EXPECT_EQ(after.hits[0].length, 4u);  // {0,1} is now nearer than {5,5}
}

TEST_F(SearchTest, HnswPathAnswersLikeTheExactPath) {
  test::Random rnd(11);
  std::vector<std::string> texts;
  for (int i = 0; i < 300; ++i) {
    std::string text;
    for (int w = 0; w < 12; ++w) text += rnd.Name(3, 8) + " ";
    texts.push_back(text);
    ASSERT_OK(Put("f/" + std::to_string(i) + ".txt", text));
  }
  ASSERT_OK(index_->Wait());
  // Queries: a few words of one file, mixed with a few of another.
  std::vector<std::string> queries;
  for (int q = 0; q < 10; ++q) {
    queries.push_back(texts[q * 29].substr(0, 20) + " " + texts[q * 31 + 1].substr(0, 12));
  }
  std::vector<std::vector<std::string>> exact;
  for (const std::string& q : queries) exact.push_back(Paths(q, 5));
  OpenIndex(AlwaysHnsw());
  ASSERT_OK(index_->CatchUp());  // builds the graph: no search does
  size_t same = 0;
  for (size_t q = 0; q < queries.size(); ++q) {
    SearchRequest r = Dense();
    r.query = queries[q];
    r.k = 5;
    ASSIGN_OR_FAIL(SearchResult res, index_->Search(r));
    EXPECT_EQ(res.method, "hnsw");
    EXPECT_EQ(res.hits.size(), 5u);
    EXPECT_EQ(res.hits[0].path, exact[q][0]);
    for (const SearchHit& h : res.hits) {
      same += std::count(exact[q].begin(), exact[q].end(), h.path);
    }
  }
  EXPECT_GE(same, 45u);  // recall@5 of at least 0.9 on a tiny graph
}

TEST_F(SearchTest, FilteredHnswSearchStillReturnsKWhenKAreVisible) {
  for (int i = 0; i < 400; ++i) {
    std::string dir = i % 40 == 0 ? "rare/" : "common/";
    ASSERT_OK(Put(dir + std::to_string(i) + ".txt", "note number " + std::to_string(i) +
                                                        " about topic " + std::to_string(i % 7)));
  }
  OpenIndex(AlwaysHnsw());
  ASSERT_OK(index_->Wait());
  ASSERT_OK(index_->CatchUp());
  SearchRequest r = Dense();
  r.query = "note about topic 3";
  r.under = "rare";
  r.k = 10;
  ASSIGN_OR_FAIL(SearchResult res, index_->Search(r));
  EXPECT_EQ(res.method, "hnsw");
  EXPECT_EQ(res.hits.size(), 10u);  // all 10 rare files, though 1 in 40 is visible
  for (const SearchHit& h : res.hits) EXPECT_TRUE(h.path.starts_with("rare/")) << h.path;
}

TEST_F(SearchTest, DeletedOrCorruptIndexFilesAreRebuiltWithTheSameAnswers) {
  for (int i = 0; i < 200; ++i) {
    ASSERT_OK(Put("n/" + std::to_string(i) + ".txt",
                  "memo " + std::to_string(i) + " on subject " + std::to_string(i % 13)));
  }
  OpenIndex(AlwaysHnsw());
  ASSERT_OK(index_->Wait());
  ASSERT_OK(index_->Rebuild());
  auto baseline = Paths("memo on subject 5");
  ASSERT_EQ(baseline.size(), 10u);
  std::string dir = store_path() + "/index";
  ASSERT_TRUE(std::filesystem::exists(dir + "/m1.faiss"));
  // Deleted: searches scan exactly until the catch-up builds the graph again.
  std::filesystem::remove_all(dir);
  OpenIndex(AlwaysHnsw());
  EXPECT_EQ(Paths("memo on subject 5"), baseline);
  ASSERT_OK(index_->CatchUp());
  EXPECT_EQ(Paths("memo on subject 5"), baseline);
  ASSERT_OK(index_->Rebuild());
  // Corrupted: a flipped byte in the middle of the FAISS file.
  {
    std::fstream f(dir + "/m1.faiss", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(std::filesystem::file_size(dir + "/m1.faiss") / 2));
    f.put('\x5a');
  }
  OpenIndex(AlwaysHnsw());
  EXPECT_EQ(Paths("memo on subject 5"), baseline);
  ASSERT_OK(index_->CatchUp());
  EXPECT_EQ(Paths("memo on subject 5"), baseline);
  // Truncated, and a meta file of garbage.
  std::filesystem::resize_file(dir + "/m1.faiss", 100);
  std::ofstream(dir + "/m1.meta") << "garbage";
  OpenIndex(AlwaysHnsw());
  EXPECT_EQ(Paths("memo on subject 5"), baseline);
  ASSERT_OK(index_->CatchUp());
  EXPECT_EQ(Paths("memo on subject 5"), baseline);
}

}  // namespace
}  // namespace vexfs
