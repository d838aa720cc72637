// Searching the memory graph's node texts through vexfs::Db: the same lexical,
// dense and hybrid search as files, over nodes alone or nodes and files in one
// ranking; filters by kind, thread, property and valid time; any snapshot's
// graph; superseded facts left out unless asked; texts queued in the write's
// own transaction and indexed by the drain.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "test_util.h"
#include "vexfs/db.h"
#include "vexfs/extension.h"
#include "vexfs/graph.h"

namespace vexfs {
namespace {

class GraphSearchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DbOptions options;
    options.sync_on_commit = false;
    options.embedder = "hash";
    // Indexing is the test's to run (WaitIndexed, wait=true), so every
    // unindexed state it looks at stays put.
    options.background_indexing = false;
    auto db = Db::Create(dir_.path() + "/store", options);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(*db);
  }

  // Closes the Db and opens it again (as a later process would).
  void Reopen() {
    db_.reset();
    DbOptions options;
    options.background_indexing = false;
    auto reopened = Db::Open(dir_.path() + "/store", options);
    ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
    db_ = std::move(*reopened);
  }

  GraphId Add(NodeSpec spec) {
    GraphBatch batch;
    GraphId id = batch.AddNode(std::move(spec));
    auto result = db_->graph().Apply(batch);
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    return id;
  }

  void PutFile(const std::string& path, const std::string& text) {
    auto tree = db_->store().Tree();
    ASSERT_TRUE(tree.ok());
    ASSERT_TRUE(vexfs::test::PutFile(tree->get(), path, text).ok());
  }

  SearchResult Search(const std::string& query, NodeSearch nodes = {},
                      std::optional<SearchMode> mode = SearchMode::kLexical,
                      std::string snapshot = "") {
    SearchRequest request;
    request.query = query;
    request.mode = mode;
    request.snapshot = std::move(snapshot);
    auto result = db_->SearchGraph(request, nodes, /*wait=*/true);
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    return result.ok() ? *result : SearchResult();
  }

  static std::vector<std::string> Documents(const SearchResult& result) {
    std::vector<std::string> out;
    for (const SearchHit& hit : result.hits) {
      if (!hit.document.empty()) out.push_back(hit.document);
    }
    return out;
  }

  static bool Has(const SearchResult& result, const GraphId& id) {
    auto docs = Documents(result);
    return std::find(docs.begin(), docs.end(), id.ToHex()) != docs.end();
  }

  test::TempDir dir_;
  std::unique_ptr<Db> db_;
};

NodeSpec Fact(std::string text, std::string key = "") {
  return NodeSpec{.kind = node_kind::kFact, .text = std::move(text), .key = std::move(key)};
}

TEST_F(GraphSearchTest, FindsANodeByItsTextInEveryMode) {
  GraphId fact = Add(Fact("deploys go through the blue green pipeline on fridays"));
  Add(Fact("the cat sleeps on the warm keyboard"));
  for (SearchMode mode : {SearchMode::kLexical, SearchMode::kDense, SearchMode::kHybrid}) {
    SearchResult result = Search("blue green pipeline", {}, mode);
    ASSERT_FALSE(result.hits.empty()) << SearchModeName(mode);
    EXPECT_EQ(result.hits[0].document, fact.ToHex()) << SearchModeName(mode);
    EXPECT_TRUE(result.hits[0].path.empty());
    EXPECT_NE(result.hits[0].snippet.find("blue green"), std::string::npos);
    EXPECT_EQ(result.unindexed_documents, 0u);
  }
}

TEST_F(GraphSearchTest, NodesAloneLeaveFilesOutAndBothRankTogether) {
  PutFile("notes/deploy.txt", "the blue green pipeline needs two clusters");
  GraphId fact = Add(Fact("deploys go through the blue green pipeline"));
  SearchResult nodes_only = Search("blue green pipeline");
  for (const SearchHit& hit : nodes_only.hits) EXPECT_TRUE(hit.path.empty()) << hit.path;
  EXPECT_TRUE(Has(nodes_only, fact));

  NodeSearch both;
  both.files = true;
  SearchResult mixed = Search("blue green pipeline", both, SearchMode::kHybrid);
  bool file = false;
  for (const SearchHit& hit : mixed.hits) file = file || hit.path == "notes/deploy.txt";
  EXPECT_TRUE(file);
  EXPECT_TRUE(Has(mixed, fact));

  // The plain file search still sees no nodes.
  SearchRequest request;
  request.query = "blue green pipeline";
  auto files = db_->Search(request, true);
  ASSERT_TRUE(files.ok());
  for (const SearchHit& hit : files->hits) EXPECT_TRUE(hit.document.empty());
}

TEST_F(GraphSearchTest, FiltersByKindThreadAndProperty) {
  GraphId turn = Add(NodeSpec{.kind = node_kind::kTurn,
                              .text = "let us talk about the quarterly budget",
                              .thread = "planning"});
  GraphId fact = Add(NodeSpec{.kind = node_kind::kFact,
                              .text = "the quarterly budget is four hundred",
                              .properties = R"({"confidence":0.9,"source":"cfo"})",
                              .thread = "finance"});
  NodeSearch facts;
  facts.kinds = {"fact"};
  SearchResult r = Search("quarterly budget", facts);
  EXPECT_TRUE(Has(r, fact));
  EXPECT_FALSE(Has(r, turn));

  NodeSearch planning;
  planning.thread = "planning";
  r = Search("quarterly budget", planning);
  EXPECT_TRUE(Has(r, turn));
  EXPECT_FALSE(Has(r, fact));

  NodeSearch by_source;
  by_source.properties = {{"source", "cfo"}, {"confidence", "0.9"}};
  r = Search("quarterly budget", by_source);
  EXPECT_TRUE(Has(r, fact));
  EXPECT_FALSE(Has(r, turn));
  by_source.properties = {{"source", "ceo"}};
  EXPECT_TRUE(Documents(Search("quarterly budget", by_source)).empty());
}

TEST_F(GraphSearchTest, ASupersededFactIsLeftOutUnlessAsked) {
  GraphId old_fact = Add(Fact("the staging database runs postgres twelve", "db-version-1"));
  TimeNs before = NowNs();
  GraphBatch batch;
  GraphId new_fact = batch.AddNode(Fact("the staging database runs postgres sixteen", "db-version-2"));
  batch.Link({.kind = edge_kind::kSupersedes, .from = new_fact, .to = old_fact});
  ASSERT_TRUE(db_->graph().Apply(batch).ok());

  SearchResult now = Search("staging database postgres");
  EXPECT_TRUE(Has(now, new_fact));
  EXPECT_FALSE(Has(now, old_fact));

  NodeSearch asked;
  asked.include_invalid = true;
  EXPECT_TRUE(Has(Search("staging database postgres", asked), old_fact));

  // As of a valid time before the newer fact, the older one was true.
  NodeSearch then;
  then.valid_at = before;
  SearchResult past = Search("staging database postgres", then);
  EXPECT_TRUE(Has(past, old_fact));
  EXPECT_FALSE(Has(past, new_fact));
}

// A repeated search reuses its node selection until the graph changes, but
// not past the moment a node's valid time begins.
TEST_F(GraphSearchTest, ANodeBecomesFindableWhenItsValidTimeBegins) {
  GraphId later = Add(NodeSpec{.kind = node_kind::kFact, .text = "the embargo lifts at noon",
                               .valid_from = NowNs() + 300'000'000});
  EXPECT_FALSE(Has(Search("embargo lifts"), later));
  EXPECT_FALSE(Has(Search("embargo lifts"), later));  // the cached selection
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  EXPECT_TRUE(Has(Search("embargo lifts"), later));
}

TEST_F(GraphSearchTest, SearchesTheGraphOfASnapshot) {
  GraphId first = Add(Fact("the office moved to harbour street", "office"));
  ASSERT_TRUE(db_->store().CreateSnapshot("before", "", {}).ok());
  // The same key, a new text: the snapshot keeps the old one, searchable.
  Add(Fact("the office moved to station road", "office"));

  SearchResult working = Search("harbour street");
  EXPECT_FALSE(Has(working, first));
  SearchResult snapshot = Search("harbour street", {}, SearchMode::kLexical, "before");
  ASSERT_TRUE(Has(snapshot, first));
  EXPECT_NE(snapshot.hits[0].snippet.find("harbour"), std::string::npos);
  EXPECT_TRUE(Has(Search("station road"), first));
}

TEST_F(GraphSearchTest, TextsWaitInTheQueueUntilIndexed) {
  GraphId fact = Add(Fact("a note about lighthouse keepers"));
  auto pending = db_->graph().PendingTexts(10);
  ASSERT_TRUE(pending.ok());
  ASSERT_EQ(pending->size(), 1u);
  EXPECT_EQ((*pending)[0].text, "a note about lighthouse keepers");

  // Not indexed yet: the search says so and finds nothing.
  SearchRequest request;
  request.query = "lighthouse keepers";
  request.mode = SearchMode::kLexical;
  auto early = db_->SearchGraph(request, {}, /*wait=*/false);
  ASSERT_TRUE(early.ok());
  EXPECT_EQ(early->unindexed_documents, 1u);
  EXPECT_TRUE(early->hits.empty());

  ASSERT_TRUE(db_->WaitIndexed().ok());
  pending = db_->graph().PendingTexts(10);
  ASSERT_TRUE(pending.ok());
  EXPECT_TRUE(pending->empty());
  auto late = db_->SearchGraph(request, {}, /*wait=*/false);
  ASSERT_TRUE(late.ok());
  EXPECT_EQ(late->unindexed_documents, 0u);
  EXPECT_TRUE(Has(*late, fact));
}

TEST_F(GraphSearchTest, ANewEmbedderIndexesTheNodeTextsAgain) {
  GraphId fact = Add(Fact("the backup runs every night at two"));
  GraphId moved = Add(Fact("the archive lives on the tape robot", "archive"));
  ASSERT_TRUE(db_->store().CreateSnapshot("old", "", {}).ok());
  Add(Fact("the archive lives in the cloud bucket", "archive"));  // only "old" keeps the tape
  ASSERT_TRUE(db_->WaitIndexed().ok());
  ASSERT_TRUE(db_->SetEmbedder("hash:64").ok());
  auto pending = db_->graph().PendingTexts(10);
  ASSERT_TRUE(pending.ok());
  EXPECT_EQ(pending->size(), 3u);  // two of the working graph, one only "old" holds
  // A Db opened now embeds with the new model, the node's text included.
  ASSERT_NO_FATAL_FAILURE(Reopen());
  SearchResult result = Search("backup every night", {}, SearchMode::kDense);
  EXPECT_EQ(result.model, "hash-64");
  EXPECT_TRUE(Has(result, fact));
  SearchResult old = Search("tape robot", {}, SearchMode::kDense, "old");
  EXPECT_EQ(old.model, "hash-64");
  EXPECT_EQ(old.unindexed_documents, 0u);
  EXPECT_TRUE(Has(old, moved));
}

// A store whose graph was written before texts were queued (an earlier build:
// no marker, nothing queued) has every text queued at its next writable open.
TEST_F(GraphSearchTest, TextsOfAnOlderGraphAreQueuedOnceAtOpen) {
  GraphId fact = Add(Fact("the lighthouse keeper logs the weather"));
  ASSERT_TRUE(db_->WaitIndexed().ok());
  {
    auto tables = RegisterTables(&db_->store(), {{"graph_texts", TableScope::kGlobal}});
    ASSERT_TRUE(tables.ok());
    StoreTxn txn;
    ASSERT_TRUE(txn.Begin(&db_->store(), true).ok());
    ASSERT_TRUE(txn.DeletePrefix((*tables)[0], "").ok());  // as an older build left it
    ASSERT_TRUE(txn.Commit().ok());
  }
  ASSERT_NO_FATAL_FAILURE(Reopen());
  auto pending = db_->graph().PendingTexts(10);
  ASSERT_TRUE(pending.ok());
  ASSERT_EQ(pending->size(), 1u);
  EXPECT_EQ((*pending)[0].text, "the lighthouse keeper logs the weather");
  EXPECT_TRUE(Has(Search("lighthouse keeper"), fact));
  // Once: the next open queues nothing.
  ASSERT_NO_FATAL_FAILURE(Reopen());
  pending = db_->graph().PendingTexts(10);
  ASSERT_TRUE(pending.ok());
  EXPECT_TRUE(pending->empty());
  EXPECT_TRUE(test::FsckClean(db_->store()));
}

// A queued text that no longer matches its hash is damage fsck names.
TEST_F(GraphSearchTest, FsckNamesADamagedQueuedText) {
  Add(Fact("a text to damage"));
  auto tables = RegisterTables(&db_->store(), {{"graph_texts", TableScope::kGlobal}});
  ASSERT_TRUE(tables.ok());
  auto pending = db_->graph().PendingTexts(10);
  ASSERT_TRUE(pending.ok() && pending->size() == 1u);
  StoreTxn txn;
  ASSERT_TRUE(txn.Begin(&db_->store(), true).ok());
  ASSERT_TRUE(txn.Put((*tables)[0], (*pending)[0].key.AsBytes(), "a text damaged").ok());
  ASSERT_TRUE(txn.Commit().ok());
  auto report = db_->store().Fsck();
  ASSERT_TRUE(report.ok());
  ASSERT_EQ(report->problems.size(), 1u);
  EXPECT_NE(report->problems[0].find("queued for search"), std::string::npos) << report->problems[0];
}

}  // namespace
}  // namespace vexfs
