// Lexical (BM25) and hybrid search against references the test computes itself:
// a plain Xapian database of every distinct passage the store has indexed,
// matched without any filter, then restricted to the view and grouped per file;
// and reciprocal rank fusion recomputed from the two single-side rankings. Also:
// snapshots, filters that must still return k, the Xapian files as a cache that
// may be deleted, damaged or foreign, stores indexed before the lexical model
// existed, and bad queries.
#include <xapian.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "common/sha256.h"
#include "db/background_indexer.h"
#include "index/embedders/hash_embedder.h"
#include "index/indexing/indexer.h"
#include "index/indexing/passages.h"
#include "index/lexical/analysis.h"
#include "index/model_registry.h"
#include "index/search/fusion.h"
#include "test_util.h"
#include "vexfs/extension.h"
#include "vexfs/index.h"

namespace vexfs {
namespace {

using test::StoreTest;

constexpr const char* kWords[] = {
    "agent",  "memory", "snapshot", "vector", "plan",    "deploy", "budget",   "kernel",
    "cache",  "graph",  "query",    "note",   "rollback", "helm",  "cluster",  "travel",
    "coffee", "bread",  "apples",   "meeting", "quarter", "costs", "runbook",  "laptop",
    "search", "index",  "passage",  "stemming", "running", "ran",  "indexing", "rank"};

// Text of `n` words drawn from kWords, with sentence ends.
std::string Words(test::Random& rnd, int n) {
  std::string text;
  for (int i = 0; i < n; ++i) {
    text += kWords[rnd.Uniform(0, std::size(kWords) - 1)];
    text += (i % 9 == 8) ? ". " : " ";
  }
  return text;
}

struct RefHit {
  std::string path;
  double score = 0;
};

// The independent answer: BM25 over a fresh Xapian database holding every
// distinct passage text in `all_texts` (what the store has indexed, so the
// statistics are the same), matched with no filter at all; then each passage's
// score goes to every file of `view` holding it, best passage per file, and
// only files passing `keep` count.
std::vector<RefHit> Reference(const std::set<std::string>& all_texts,
                              const std::map<std::string, std::string>& view,
                              const std::string& query, size_t k,
                              const std::function<bool(const std::string&)>& keep) {
  Xapian::WritableDatabase db(std::string(), Xapian::DB_BACKEND_INMEMORY);
  std::vector<std::string> texts(all_texts.begin(), all_texts.end());
  for (size_t i = 0; i < texts.size(); ++i) db.add_document(index::MakeLexicalDocument(texts[i], i));
  db.commit();
  auto parsed = index::ParseLexicalQuery(query, db);
  EXPECT_TRUE(parsed.ok());
  Xapian::Enquire enquire(db);
  enquire.set_weighting_scheme(Xapian::BM25Weight());
  enquire.set_query(parsed->query);
  std::map<std::string, double> score_of_text;
  Xapian::MSet mset = enquire.get_mset(0, db.get_doccount());
  for (auto it = mset.begin(); it != mset.end(); ++it) score_of_text[texts[*it - 1]] = it.get_weight();
  std::vector<RefHit> hits;
  for (const auto& [path, content] : view) {
    if (!keep(path)) continue;
    std::optional<double> best;
    for (const index::Passage& p : index::SplitPassages(content)) {
      auto found = score_of_text.find(content.substr(p.offset, p.length));
      if (found != score_of_text.end() && (!best || found->second > *best)) best = found->second;
    }
    if (best) hits.push_back({path, *best});
  }
  std::sort(hits.begin(), hits.end(), [](const RefHit& a, const RefHit& b) {
    return a.score != b.score ? a.score > b.score : a.path < b.path;
  });
  if (hits.size() > k) hits.resize(k);
  return hits;
}

bool Everything(const std::string&) { return true; }

class LexicalSearchTest : public StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    ASSERT_OK(Index::SetEmbedder(&store(), "hash"));
    OpenIndex();
  }

  void OpenIndex(IndexOptions options = {}) {
    index_.reset();
    auto index = Index::Open(&store(), options);
    ASSERT_TRUE(index.ok()) << index.status().ToString();
    index_ = std::move(*index);
  }

  // Writes `content` and remembers it, as the view and as an indexed text.
  void Write(const std::string& path, const std::string& content) {
    ASSERT_OK(Put(path, content));
    files_[path] = content;
    for (const index::Passage& p : index::SplitPassages(content)) {
      texts_.insert(content.substr(p.offset, p.length));
    }
  }

  void Remove(const std::string& path) {
    size_t slash = path.rfind('/');
    ASSERT_OK(Edit([&](TreeEditor& ed) -> Status {
      VEXFS_ASSIGN_OR_RETURN(uint64_t dir, ed.ResolvePath(path.substr(0, slash)));
      return ed.Unlink(dir, path.substr(slash + 1));
    }));
    files_.erase(path);
  }

  // Random files: most under common/, one in eight under rare/.
  void WriteCorpus(test::Random& rnd, int n) {
    for (int i = 0; i < n; ++i) {
      std::string dir = i % 8 == 0 ? "rare/" : "common/";
      Write(dir + std::to_string(i) + ".md", Words(rnd, 20 + static_cast<int>(rnd.Uniform(0, 400))));
    }
  }

  SearchResult Lexical(SearchRequest r) {
    r.mode = SearchMode::kLexical;
    auto res = index_->Search(r);
    EXPECT_TRUE(res.ok()) << res.status().ToString();
    return res.ok() ? *res : SearchResult{};
  }

  void ExpectEqual(const SearchResult& got, const std::vector<RefHit>& want,
                   const std::string& what) {
    ASSERT_EQ(got.hits.size(), want.size()) << what;
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_NEAR(got.hits[i].score, want[i].score, 1e-3) << what << " #" << i;
      // Equal scores may come in either order; distinct ones must agree.
      bool tied = (i > 0 && std::abs(want[i - 1].score - want[i].score) < 1e-4) ||
                  (i + 1 < want.size() && std::abs(want[i + 1].score - want[i].score) < 1e-4);
      if (!tied) {
        EXPECT_EQ(got.hits[i].path, want[i].path) << what << " #" << i;
      }
      ASSERT_TRUE(got.hits[i].lexical.has_value());
      EXPECT_EQ(got.hits[i].lexical->rank, i + 1);
    }
  }

  std::map<std::string, std::string> files_;  // the working tree
  std::set<std::string> texts_;               // every passage text ever indexed
  std::unique_ptr<Index> index_;
};

TEST_F(LexicalSearchTest, WorkingTreeSearchEqualsAPlainXapianReference) {
  test::Random rnd(3);
  WriteCorpus(rnd, 120);
  ASSERT_OK(index_->Wait());
  for (const char* q : {"agent memory", "rollback helm cluster", "running", "\"coffee bread\"",
                        "stemming ranks", "budget -travel", "kernel cache graph query note"}) {
    SearchRequest r;
    r.query = q;
    r.k = 15;
    SearchResult got = Lexical(r);
    EXPECT_EQ(got.mode, "lexical");
    ExpectEqual(got, Reference(texts_, files_, q, 15, Everything), q);
  }
}

TEST_F(LexicalSearchTest, SnapshotSearchRanksExactlyThatSnapshotsPassages) {
  test::Random rnd(5);
  WriteCorpus(rnd, 60);
  ASSERT_OK(index_->Wait());
  auto early_files = files_;
  ASSERT_OK(Snap("early").status());
  for (int i = 0; i < 60; i += 3) Write("common/" + std::to_string(i) + ".md", Words(rnd, 80));
  ASSERT_OK(index_->Wait());  // the reference holds every version written
  for (int i = 1; i < 60; i += 7) {
    if (files_.count("common/" + std::to_string(i) + ".md")) Remove("common/" + std::to_string(i) + ".md");
  }
  Write("new/added.md", "agent memory agent memory snapshot");
  ASSERT_OK(index_->Wait());
  for (const char* q : {"agent memory", "deploy budget", "snapshot"}) {
    SearchRequest r;
    r.query = q;
    r.k = 20;
    r.snapshot = "early";
    ExpectEqual(Lexical(r), Reference(texts_, early_files, q, 20, Everything),
                std::string("at early: ") + q);
    r.snapshot.clear();
    ExpectEqual(Lexical(r), Reference(texts_, files_, q, 20, Everything),
                std::string("now: ") + q);
  }
}

TEST_F(LexicalSearchTest, FiltersApplyDuringMatchingAndStillReturnK) {
  test::Random rnd(7);
  WriteCorpus(rnd, 160);  // 20 files under rare/
  ASSERT_OK(Edit([](TreeEditor& ed) -> Status {
    for (int i : {8, 16, 24}) {
      VEXFS_ASSIGN_OR_RETURN(uint64_t ino, ed.ResolvePath("rare/" + std::to_string(i) + ".md"));
      VEXFS_RETURN_IF_ERROR(ed.SetXattr(ino, MetaXattrName("kind"), "keep"));
    }
    return Status::Ok();
  }));
  ASSERT_OK(index_->Wait());
  auto is_rare = [](const std::string& p) { return p.starts_with("rare/"); };
  SearchRequest r;
  r.query = "agent memory plan";
  r.k = 10;
  r.under = "rare";
  SearchResult got = Lexical(r);
  EXPECT_EQ(got.hits.size(), 10u);
  ExpectEqual(got, Reference(texts_, files_, r.query, 10, is_rare), "under rare");
  r.under.clear();
  r.where = {{"kind", "keep"}};
  r.k = 5;
  got = Lexical(r);
  ASSERT_EQ(got.hits.size(), 3u);
  for (const SearchHit& h : got.hits) EXPECT_TRUE(h.path.starts_with("rare/")) << h.path;
  // Every passage, not one per file: as many as the view has matching.
  r.where.clear();
  r.under = "rare";
  r.passages = true;
  r.k = 10000;
  got = Lexical(r);
  size_t matching = 0;
  for (const auto& [path, content] : files_) {
    if (!is_rare(path)) continue;
    for (const index::Passage& p : index::SplitPassages(content)) {
      std::string_view text = std::string_view(content).substr(p.offset, p.length);
      if (text.find("agent") != text.npos || text.find("memory") != text.npos ||
          text.find("plan") != text.npos) {
        ++matching;
      }
    }
  }
  EXPECT_EQ(got.hits.size(), matching);
}

TEST_F(LexicalSearchTest, PhrasesStemmingAndOtherScripts) {
  Write("a.md", "Rolling back a release uses helm rollback.");
  Write("b.md", "Back in the day we were rolling dice.");
  Write("c.md", "索引和搜索是记忆的核心");
  Write("d.md", "The indexer indexes indexed files.");
  ASSERT_OK(index_->Wait());
  SearchRequest r;
  r.query = "\"rolling back\"";
  SearchResult got = Lexical(r);
  ASSERT_EQ(got.hits.size(), 1u);
  EXPECT_EQ(got.hits[0].path, "a.md");
  r.query = "搜索";
  got = Lexical(r);
  ASSERT_EQ(got.hits.size(), 1u);
  EXPECT_EQ(got.hits[0].path, "c.md");
  r.query = "indexing";  // stems to the same term as "indexes"
  got = Lexical(r);
  ASSERT_EQ(got.hits.size(), 1u);
  EXPECT_EQ(got.hits[0].path, "d.md");
  r.query = "rolling";
  r.feedback = true;  // expansion adds terms; the words asked for still lead
  got = Lexical(r);
  ASSERT_GE(got.hits.size(), 2u);
}

TEST_F(LexicalSearchTest, HybridIsReciprocalRankFusionOfBothSides) {
  test::Random rnd(9);
  WriteCorpus(rnd, 150);
  ASSERT_OK(index_->Wait());
  for (const char* q : {"agent memory snapshot", "coffee meeting", "kernel"}) {
    SearchRequest r;
    r.query = q;
    r.k = 100;
    r.mode = SearchMode::kDense;
    ASSIGN_OR_FAIL(SearchResult dense, index_->Search(r));
    r.mode = SearchMode::kLexical;
    ASSIGN_OR_FAIL(SearchResult lexical, index_->Search(r));
    std::map<std::string, double> fused;
    std::map<std::string, std::pair<int, int>> ranks;
    for (size_t i = 0; i < dense.hits.size(); ++i) {
      fused[dense.hits[i].path] += 1.0 / (60 + double(i + 1));
      ranks[dense.hits[i].path].first = static_cast<int>(i + 1);
    }
    for (size_t i = 0; i < lexical.hits.size(); ++i) {
      fused[lexical.hits[i].path] += 1.0 / (60 + double(i + 1));
      ranks[lexical.hits[i].path].second = static_cast<int>(i + 1);
    }
    r.mode = SearchMode::kHybrid;
    r.k = 10;
    ASSIGN_OR_FAIL(SearchResult hybrid, index_->Search(r));
    EXPECT_EQ(hybrid.mode, "hybrid");
    EXPECT_EQ(hybrid.fusion, "rrf");
    ASSERT_EQ(hybrid.hits.size(), 10u);
    std::vector<double> sorted;
    for (const auto& [p, s] : fused) sorted.push_back(s);
    std::sort(sorted.rbegin(), sorted.rend());
    for (size_t i = 0; i < hybrid.hits.size(); ++i) {
      const SearchHit& h = hybrid.hits[i];
      EXPECT_NEAR(h.score, fused[h.path], 1e-6) << q << " " << h.path;
      EXPECT_NEAR(h.score, sorted[i], 1e-6) << q << " #" << i;
      auto [dense_rank, lexical_rank] = ranks[h.path];
      EXPECT_EQ(h.dense ? static_cast<int>(h.dense->rank) : 0, dense_rank) << h.path;
      EXPECT_EQ(h.lexical ? static_cast<int>(h.lexical->rank) : 0, lexical_rank) << h.path;
    }
  }
}

TEST_F(LexicalSearchTest, XapianFilesAreACacheThatMayBeDeletedDamagedOrForeign) {
  test::Random rnd(11);
  WriteCorpus(rnd, 800);
  ASSERT_OK(index_->Wait());
  ASSIGN_OR_FAIL(IndexStatus status, index_->GetStatus());
  ASSERT_GT(status.models.back().vectors, 1000u);  // enough for a checkpoint on open
  ASSERT_OK(index_->Rebuild());
  SearchRequest r;
  r.query = "agent memory rollback";
  r.k = 20;
  SearchResult baseline = Lexical(r);
  ASSERT_EQ(baseline.hits.size(), 20u);
  std::string dir = store_path() + "/index";
  auto meta = dir + "/lexical-m2.meta";
  ASSERT_TRUE(std::filesystem::exists(meta));
  auto same = [&](const std::string& what) {
    OpenIndex();
    SearchResult got = Lexical(r);
    ASSERT_EQ(got.hits.size(), baseline.hits.size()) << what;
    for (size_t i = 0; i < got.hits.size(); ++i) {
      EXPECT_EQ(got.hits[i].path, baseline.hits[i].path) << what << " #" << i;
      EXPECT_FLOAT_EQ(got.hits[i].score, baseline.hits[i].score) << what << " #" << i;
    }
  };
  // Deleted.
  std::filesystem::remove_all(dir);
  same("deleted");
  ASSERT_TRUE(std::filesystem::exists(meta));  // rebuilt on open
  // A flipped byte in the largest file of the current generation: the digest
  // refuses the generation, and a new one is built from the log.
  auto current_generation = [&] {
    std::string newest;
    for (const auto& e : std::filesystem::directory_iterator(dir + "/lexical-m2")) {
      std::string name = e.path().filename().string();
      if (newest.empty() || std::stoull(name.substr(1)) > std::stoull(newest.substr(1))) newest = name;
    }
    return dir + "/lexical-m2/" + newest;
  };
  std::string damaged = current_generation();
  std::filesystem::path largest;
  for (const auto& e : std::filesystem::directory_iterator(damaged)) {
    if (largest.empty() || e.file_size() > std::filesystem::file_size(largest)) largest = e.path();
  }
  {
    std::fstream f(largest, std::ios::in | std::ios::out | std::ios::binary);
    auto middle = static_cast<std::streamoff>(std::filesystem::file_size(largest) / 2);
    f.seekg(middle);
    char c = 0;
    f.get(c);
    f.seekp(middle);
    f.put(static_cast<char>(c ^ 0x5a));
  }
  same("flipped byte in " + largest.filename().string());
  EXPECT_NE(current_generation(), damaged);
  // A meta file of garbage, then a truncated one.
  std::ofstream(meta) << "garbage";
  same("garbage meta");
  std::filesystem::resize_file(meta, 10);
  same("truncated meta");
  // Another store's files (same model id, other passages).
  test::TempDir other_dir;
  {
    auto other = test::CreateStoreOrDie(other_dir.Sub("store"));
    ASSERT_OK(Index::SetEmbedder(other.get(), "hash"));
    auto other_tree = other->Tree();
    ASSERT_TRUE(other_tree.ok());
    test::Random other_rnd(99);
    for (int i = 0; i < 400; ++i) {
      ASSERT_OK(test::PutFile(other_tree->get(), "x/" + std::to_string(i), Words(other_rnd, 200)));
    }
    auto other_index = Index::Open(other.get());
    ASSERT_TRUE(other_index.ok());
    ASSERT_OK((*other_index)->Wait());
    ASSERT_OK((*other_index)->Rebuild());
  }
  std::filesystem::remove_all(dir);
  std::filesystem::copy(other_dir.Sub("store") + "/index", dir,
                        std::filesystem::copy_options::recursive);
  same("another store's files");
}

// Ids come from document numbers of two shards (checkpoint and in-memory tail)
// and the view filter runs in each shard's numbering: both must agree with the
// reference, for the working tree, a snapshot and a path filter.
TEST_F(LexicalSearchTest, ACheckpointAndItsTailAnswerLikeTheReference) {
  test::Random rnd(13);
  WriteCorpus(rnd, 800);
  ASSERT_OK(index_->Wait());
  ASSERT_OK(index_->Rebuild());  // records so far go to the checkpoint
  auto before_files = files_;
  ASSERT_OK(Snap("before").status());
  for (int i = 0; i < 800; i += 5) {
    std::string dir = i % 8 == 0 ? "rare/" : "common/";
    Write(dir + std::to_string(i) + ".md", Words(rnd, 60));  // new versions: tail records
  }
  for (int i = 800; i < 860; ++i) Write("rare/" + std::to_string(i) + ".md", Words(rnd, 90));
  ASSERT_OK(index_->Wait());
  auto is_rare = [](const std::string& p) { return p.starts_with("rare/"); };
  for (const char* q : {"agent memory", "rollback helm cluster", "\"coffee bread\""}) {
    SearchRequest r;
    r.query = q;
    r.k = 25;
    ExpectEqual(Lexical(r), Reference(texts_, files_, q, 25, Everything), std::string("now: ") + q);
    r.under = "rare";
    ExpectEqual(Lexical(r), Reference(texts_, files_, q, 25, is_rare), std::string("rare: ") + q);
    r.under.clear();
    r.snapshot = "before";
    ExpectEqual(Lexical(r), Reference(texts_, before_files, q, 25, Everything),
                std::string("before: ") + q);
  }
}

// A store written while the background indexer runs gets its Xapian files from
// the indexer, with no search asking for them, and they answer like the reference.
TEST_F(LexicalSearchTest, TheBackgroundIndexerWritesTheXapianFiles) {
  ASSIGN_OR_FAIL(auto watch, CommitWatch::Open(&store()));
  db::BackgroundIndexer indexer(
      [this]() -> Result<Index*> { return index_.get(); },
      [](Index* index, const std::function<bool()>& stop) { return index->Wait(nullptr, stop); },
      std::move(watch), "");
  indexer.Start();
  test::Random rnd(17);
  WriteCorpus(rnd, 800);  // more than 1000 passages: a checkpoint is due
  std::string meta = store_path() + "/index/lexical-m2.meta";
  for (int i = 0; i < 1200 && !std::filesystem::exists(meta); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(std::filesystem::exists(meta)) << "no checkpoint after a minute";
  ASSERT_OK(index_->Wait());
  for (const char* q : {"agent memory", "\"rollback helm\""}) {
    SearchRequest r;
    r.query = q;
    r.k = 20;
    ExpectEqual(Lexical(r), Reference(texts_, files_, q, 20, Everything), q);
  }
  // Shutting down while more is written leaves files the next open can use.
  for (int i = 0; i < 400; ++i) Write("late/" + std::to_string(i) + ".md", Words(rnd, 300));
  indexer.Stop();  // the index it drains goes next, as a Db stops it first
  OpenIndex();
  ASSERT_OK(index_->Wait());
  SearchRequest r;
  r.query = "kernel cache";
  r.k = 20;
  ExpectEqual(Lexical(r), Reference(texts_, files_, r.query, 20, Everything), "after restart");
}

TEST_F(LexicalSearchTest, AStoreIndexedBeforeTheLexicalModelIsBackfilled) {
  Write("notes/a.md", "the quarterly budget meeting with Dana");
  Write("notes/b.md", "coffee beans and oat milk");
  ASSERT_OK(Snap("s1").status());
  {
    // Index as a release without the lexical model did: vectors only.
    auto embedder = index::MakeHashEmbedder();
    index::IndexerOptions options;
    options.lexical = false;
    index::Indexer old(&store(), embedder.get(), options);
    ASSERT_OK(old.Drain());
  }
  OpenIndex();
  ASSERT_OK(index_->Wait());
  SearchRequest r;
  r.query = "budget";
  SearchResult got = Lexical(r);
  ASSERT_EQ(got.hits.size(), 1u);
  EXPECT_EQ(got.hits[0].path, "notes/a.md");
  r.snapshot = "s1";
  got = Lexical(r);
  ASSERT_EQ(got.hits.size(), 1u);
  EXPECT_EQ(got.unindexed_files, 0u);
}

TEST_F(LexicalSearchTest, ANewAnalysisKeepsTheLogAndRebuildsTheFiles) {
  test::Random rnd(13);
  WriteCorpus(rnd, 600);
  ASSERT_OK(index_->Wait());
  ASSERT_OK(index_->Rebuild());
  SearchRequest r;
  r.query = "agent memory";
  r.k = 10;
  SearchResult before = Lexical(r);
  // The store as an older release with another analysis left it.
  {
    ASSIGN_OR_FAIL(index::IndexTables ix, index::SearchTables(&store()));
    StoreTxn txn;
    ASSERT_OK(txn.Begin(&store(), true));
    ASSIGN_OR_FAIL(auto model, index::FindModel(txn, ix, index::kLexicalModelName));
    ASSERT_TRUE(model.has_value());
    model->info.fingerprint = "xapian-1.2;analysis=0";
    ASSERT_OK(index::SaveModel(&txn, ix, *model));
    ASSERT_OK(txn.Commit());
  }
  OpenIndex();
  ASSERT_OK(index_->Wait());  // the indexer adopts this release's analysis
  ASSIGN_OR_FAIL(IndexStatus status, index_->GetStatus());
  EXPECT_EQ(status.models.back().fingerprint, index::LexicalFingerprint());
  SearchResult after = Lexical(r);
  ASSERT_EQ(after.hits.size(), before.hits.size());
  for (size_t i = 0; i < after.hits.size(); ++i) {
    EXPECT_EQ(after.hits[i].path, before.hits[i].path) << i;
  }
}

TEST_F(LexicalSearchTest, ADamagedLogRecordIsAnErrorNeverAWrongAnswer) {
  test::Random rnd(17);
  WriteCorpus(rnd, 40);
  ASSERT_OK(index_->Wait());
  SearchRequest r;
  r.query = "agent memory";
  r.k = 20;
  Lexical(r);  // the index is loaded and caught up
  ASSIGN_OR_FAIL(index::IndexTables ix, index::SearchTables(&store()));
  auto next_id = [&]() -> uint64_t {
    StoreTxn txn;
    EXPECT_OK(txn.Begin(&store(), false));
    auto model = index::FindModel(txn, ix, index::kLexicalModelName);
    return model.ok() && model->has_value() ? (*model)->next_vector : 0;
  };
  uint64_t before = next_id();
  for (int i = 0; i < 20; ++i) Write("more/" + std::to_string(i) + ".md", Words(rnd, 300));
  ASSERT_OK(index_->Wait());
  uint64_t after = next_id();
  ASSERT_GT(after, before + 4);
  // Damage a record in the middle of what the loaded index has not seen yet.
  std::string key, saved;
  {
    StoreTxn txn;
    ASSERT_OK(txn.Begin(&store(), true));
    ASSIGN_OR_FAIL(auto model, index::FindModel(txn, ix, index::kLexicalModelName));
    key = index::VectorKey(model->id, (before + after) / 2);
    ASSIGN_OR_FAIL(auto raw, txn.Get(ix.vectors, key));
    saved = std::string(*raw);
    std::string damaged = saved;
    damaged.back() = static_cast<char>(damaged.back() ^ 0x40);
    ASSERT_OK(txn.Put(ix.vectors, key, damaged));
    ASSERT_OK(txn.Commit());
  }
  SearchRequest lexical = r;
  lexical.mode = SearchMode::kLexical;
  EXPECT_CODE(index_->Search(lexical), StatusCode::kCorruption);
  // Repaired, the same index resumes its catch-up and answers like the
  // reference: nothing it had added before the damaged record is added twice.
  {
    StoreTxn txn;
    ASSERT_OK(txn.Begin(&store(), true));
    ASSERT_OK(txn.Put(ix.vectors, key, saved));
    ASSERT_OK(txn.Commit());
  }
  ExpectEqual(Lexical(r), Reference(texts_, files_, r.query, r.k, Everything), "after the repair");
}

TEST_F(LexicalSearchTest, BadQueriesGetClearErrorsAndDenseStillAnswers) {
  Write("a.md", "Rolling back a release uses helm rollback.");
  ASSERT_OK(index_->Wait());
  SearchRequest r;
  r.mode = SearchMode::kHybrid;
  r.query = "?!... ---";
  ASSIGN_OR_FAIL(SearchResult hybrid, index_->Search(r));
  EXPECT_EQ(hybrid.mode, "dense");
  EXPECT_FALSE(hybrid.note.empty());
  r.mode = SearchMode::kLexical;
  auto lexical = index_->Search(r);
  EXPECT_CODE(lexical, StatusCode::kInvalidArgument);
  EXPECT_NE(lexical.status().message().find("nothing to search for"), std::string::npos);
  r.mode = SearchMode::kHybrid;
  r.query = std::string(1 << 20, 'a');
  auto huge = index_->Search(r);
  EXPECT_CODE(huge, StatusCode::kInvalidArgument);
  EXPECT_NE(huge.status().message().find("at most"), std::string::npos);
  r.query = "roll\xff\xfe back";
  EXPECT_CODE(index_->Search(r), StatusCode::kInvalidArgument);
  r.query = "\"unbalanced quote AND (";  // read as words
  ASSIGN_OR_FAIL(SearchResult words, index_->Search(r));
  r.query = "";
  r.vector = std::vector<float>(index::kDefaultHashDim, 0.05f);
  r.mode = SearchMode::kLexical;
  EXPECT_CODE(index_->Search(r), StatusCode::kInvalidArgument);
  r.mode = SearchMode::kHybrid;  // a vector alone: the dense side answers
  ASSIGN_OR_FAIL(SearchResult by_vector, index_->Search(r));
  EXPECT_EQ(by_vector.mode, "dense");
  EXPECT_CODE(ParseSearchMode("fuzzy"), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace vexfs
