// vexfs::Db: one open attaches what the store needs, the background indexer
// follows the store's own commits (this process's and other processes') with
// nobody notifying it, an extension the program lacks leaves its data alone,
// and the default search mode follows the embedder.
#include "vexfs/db.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

#include "store/journal_extension.h"
#include "test_util.h"

namespace vexfs {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

class DbTest : public ::testing::Test {
 protected:
  void SetUp() override { path_ = dir_.path() + "/store"; }

  // Creates the store with the lexical hash embedder (no model files needed).
  std::unique_ptr<Db> CreateDb(DbOptions options = DefaultDbOptions()) {
    options.sync_on_commit = false;
    if (options.embedder.empty()) options.embedder = "hash";
    auto db = Db::Create(path_, options);
    EXPECT_TRUE(db.ok()) << db.status().ToString();
    return db.ok() ? std::move(*db) : nullptr;
  }

  // Searches without indexing first until `path` is the best hit, for 20 s at most.
  static bool FoundWithoutWaiting(Db& db, const std::string& query, const std::string& path) {
    SearchRequest r;
    r.query = query;
    auto deadline = Clock::now() + std::chrono::seconds(20);
    while (Clock::now() < deadline) {
      auto result = db.Search(r, /*wait=*/false);
      if (result.ok() && !result->hits.empty() && result->hits[0].path == path) return true;
      std::this_thread::sleep_for(milliseconds(5));
    }
    return false;
  }

  // Runs the vexfs CLI (VEXFS_BIN) on this store in another process.
  int RunCli(const std::string& args) {
    const char* bin = std::getenv("VEXFS_BIN");
    EXPECT_NE(bin, nullptr) << "VEXFS_BIN is not set";
    if (bin == nullptr) return -1;
    std::string command = std::string(bin) + " --store " + path_ + " " + args;
    return std::system(command.c_str());
  }

  test::TempDir dir_;
  std::string path_;
};

TEST_F(DbTest, TheCommitWatchWakesOnThisProcesssAndAnotherProcesssCommits) {
  DbOptions options;
  options.background_indexing = false;
  auto db = CreateDb(options);
  ASSERT_NE(db, nullptr);
  ASSIGN_OR_FAIL(auto watch, CommitWatch::Open(&db->store()));
  uint64_t before = watch->LastCommit();
  // Nothing committed: the wait runs out.
  EXPECT_EQ(watch->WaitPast(before, 50), before);
  std::thread writer([&] {
    std::this_thread::sleep_for(milliseconds(100));
    ASSIGN_OR_FAIL(auto tree, db->store().Tree());
    ASSERT_OK(test::PutFile(tree.get(), "a.txt", "in process"));
  });
  auto start = Clock::now();
  uint64_t after = watch->WaitPast(before, 10000);
  writer.join();
  EXPECT_GT(after, before);
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(5)) << "woke by timeout, not by the commit";

  std::ofstream(dir_.path() + "/b.txt") << "from another process\n";
  uint64_t seen = watch->LastCommit();
  std::thread other([&] { EXPECT_EQ(RunCli("put " + dir_.path() + "/b.txt b.txt"), 0); });
  EXPECT_GT(watch->WaitPast(seen, 20000), seen);
  other.join();

  watch->Interrupt();
  start = Clock::now();
  uint64_t last = watch->LastCommit();
  EXPECT_EQ(watch->WaitPast(last, 10000), last);
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(5)) << "an interrupt did not end the wait";
}

TEST_F(DbTest, AWriteInThisProcessIsSearchableWithNobodyNotifying) {
  auto db = CreateDb();
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(db->background_indexing());
  ASSIGN_OR_FAIL(auto tree, db->store().Tree());
  ASSERT_OK(test::PutFile(tree.get(), "notes/deploy.md", "rollback the helm release"));
  EXPECT_TRUE(FoundWithoutWaiting(*db, "helm rollback", "notes/deploy.md"));
  // Later writes too: the indexer keeps following commits.
  ASSERT_OK(test::PutFile(tree.get(), "notes/food.md", "oat milk and rye bread"));
  EXPECT_TRUE(FoundWithoutWaiting(*db, "rye bread", "notes/food.md"));
}

TEST_F(DbTest, AnotherProcesssWriteIsSearchableWithNobodyNotifying) {
  auto db = CreateDb();
  ASSERT_NE(db, nullptr);
  std::ofstream(dir_.path() + "/plan.md") << "migrate the postgres cluster on friday\n";
  ASSERT_EQ(RunCli("put " + dir_.path() + "/plan.md plan.md"), 0);
  EXPECT_TRUE(FoundWithoutWaiting(*db, "postgres cluster", "plan.md"));
}

TEST_F(DbTest, ABurstOfCommitsIsAllIndexed) {
  auto db = CreateDb();
  ASSERT_NE(db, nullptr);
  ASSIGN_OR_FAIL(auto tree, db->store().Tree());
  for (int i = 0; i < 200; ++i) {
    ASSERT_OK(test::PutFile(tree.get(), "burst/" + std::to_string(i) + ".txt",
                            "note number w" + std::to_string(i) + "x"));
  }
  EXPECT_TRUE(FoundWithoutWaiting(*db, "w199x", "burst/199.txt"));
  EXPECT_TRUE(FoundWithoutWaiting(*db, "w0x", "burst/0.txt"));
  ASSIGN_OR_FAIL(Index * index, db->index());
  auto deadline = Clock::now() + std::chrono::seconds(20);
  uint64_t queued = 1;
  while (queued > 0 && Clock::now() < deadline) {
    ASSIGN_OR_FAIL(IndexStatus status, index->GetStatus());
    queued = status.queued;
    std::this_thread::sleep_for(milliseconds(10));
  }
  EXPECT_EQ(queued, 0u);
}

TEST_F(DbTest, WithoutBackgroundIndexingASearchThatWaitsIndexes) {
  DbOptions options;
  options.background_indexing = false;
  auto db = CreateDb(options);
  ASSERT_NE(db, nullptr);
  EXPECT_FALSE(db->background_indexing());
  ASSIGN_OR_FAIL(auto tree, db->store().Tree());
  ASSERT_OK(test::PutFile(tree.get(), "a.md", "kubernetes ingress notes"));
  SearchRequest r;
  r.query = "ingress";
  std::this_thread::sleep_for(milliseconds(200));
  ASSIGN_OR_FAIL(SearchResult early, db->Search(r, /*wait=*/false));
  EXPECT_TRUE(early.hits.empty());
  EXPECT_EQ(early.unindexed_files, 1u);
  ASSIGN_OR_FAIL(SearchResult late, db->Search(r, /*wait=*/true));
  ASSERT_EQ(late.hits.size(), 1u);
  EXPECT_EQ(late.hits[0].path, "a.md");
}

TEST_F(DbTest, BranchHandlesWorkOnTheirOwnBranchWhateverHeadNames) {
  DbOptions options;
  options.background_indexing = false;
  auto db = CreateDb(options);
  ASSERT_NE(db, nullptr);
  ASSERT_OK(db->store().CreateBranch("replan", std::nullopt));
  ASSIGN_OR_FAIL(DbBranch main, db->Branch());  // HEAD's, resolved now
  ASSIGN_OR_FAIL(DbBranch replan, db->Branch("replan"));
  EXPECT_EQ(main.name(), "main");
  EXPECT_EQ(replan.name(), "replan");
  {
    ASSIGN_OR_FAIL(auto tree, main.Tree());
    ASSERT_OK(test::PutFile(tree.get(), "plan.md", "sail along the coast to the lighthouse"));
  }
  {
    ASSIGN_OR_FAIL(auto tree, replan.Tree());
    ASSERT_OK(test::PutFile(tree.get(), "plan.md", "take the mountain pass by night"));
  }
  // Checking out another branch moves HEAD, not a handle.
  ASSERT_OK(db->store().Checkout("replan"));
  SearchRequest r;
  r.query = "lighthouse";
  ASSIGN_OR_FAIL(SearchResult on_main, main.Search(r, /*wait=*/true));
  ASSERT_EQ(on_main.hits.size(), 1u);
  EXPECT_EQ(on_main.hits[0].path, "plan.md");
  ASSIGN_OR_FAIL(SearchResult on_replan, replan.Search(r, /*wait=*/true));
  EXPECT_TRUE(on_replan.hits.empty());

  ASSIGN_OR_FAIL(CommitInfo before, main.Snapshot("coast", "the first plan"));
  ASSIGN_OR_FAIL(auto main_log, db->store().Log("main"));
  ASSERT_FALSE(main_log.empty());
  EXPECT_EQ(main_log[0].id, before.id);
  ASSIGN_OR_FAIL(auto replan_log, db->store().Log("replan"));
  EXPECT_TRUE(replan_log.empty());
  {
    ASSIGN_OR_FAIL(auto tree, main.Tree());
    ASSERT_OK(test::PutFile(tree.get(), "plan.md", "stay in port"));
  }
  ASSERT_OK(main.Restore("coast"));
  ASSIGN_OR_FAIL(auto view, db->store().OpenView("", "main"));
  ASSIGN_OR_FAIL(std::string restored, view->ReadAll("plan.md"));
  EXPECT_EQ(restored, "sail along the coast to the lighthouse");
  ASSIGN_OR_FAIL(auto other, db->store().OpenView("", "replan"));
  ASSIGN_OR_FAIL(std::string untouched, other->ReadAll("plan.md"));
  EXPECT_EQ(untouched, "take the mountain pass by night");

  EXPECT_EQ(db->Branch("nowhere").status().code(), StatusCode::kNotFound);
  ASSERT_OK(db->store().Checkout("main"));
  ASSERT_OK(db->store().DeleteBranch("replan"));
  EXPECT_EQ(replan.Tree().status().code(), StatusCode::kNotFound);
}

ExtensionFactory Journal() {
  return [](Store* store) -> Result<std::shared_ptr<Extension>> {
    VEXFS_ASSIGN_OR_RETURN(auto tables, RegisterTables(store, {{"journal", TableScope::kPerBranch}}));
    return std::shared_ptr<Extension>(std::make_shared<test::JournalExtension>(tables[0]));
  };
}

TEST_F(DbTest, AnExtensionThisProgramLacksKeepsItsDataAndNamesItselfInRefusals) {
  DbOptions with;
  with.extensions = {Journal()};
  {
    auto db = CreateDb(with);
    ASSERT_NE(db, nullptr);
    EXPECT_TRUE(db->unattached_extensions().empty());
    auto journal = std::static_pointer_cast<test::JournalExtension>(
        FindExtension(&db->store(), "journal"));
    ASSERT_NE(journal, nullptr);
    ASSERT_OK(journal->Write(&db->store(), {"first line"}));
    ASSERT_OK(db->store().CreateSnapshot("one", "", {}).status());
  }
  {
    DbOptions without;
    without.sync_on_commit = false;
    ASSIGN_OR_FAIL(auto db, Db::Open(path_, without));
    EXPECT_EQ(db->unattached_extensions(), std::vector<std::string>{"journal"});
    // Files are written as ever...
    ASSIGN_OR_FAIL(auto tree, db->store().Tree());
    ASSERT_OK(test::PutFile(tree.get(), "a.txt", "still writable"));
    // ...but what would drop the journal's data is refused, naming it.
    auto snap = db->store().CreateSnapshot("two", "", {});
    ASSERT_FALSE(snap.ok());
    EXPECT_EQ(snap.status().code(), StatusCode::kNotSupported);
    EXPECT_NE(snap.status().message().find("'journal'"), std::string::npos) << snap.status().ToString();
    Status restore = db->store().Restore("one");
    EXPECT_EQ(restore.code(), StatusCode::kNotSupported);
    EXPECT_NE(restore.message().find("'journal'"), std::string::npos) << restore.ToString();
  }
  ASSIGN_OR_FAIL(auto db, Db::Open(path_, with));
  EXPECT_TRUE(db->unattached_extensions().empty());
  auto journal =
      std::static_pointer_cast<test::JournalExtension>(FindExtension(&db->store(), "journal"));
  ASSIGN_OR_FAIL(auto lines, journal->Read(&db->store()));
  EXPECT_EQ(lines, std::vector<std::string>{"first line"});
  ASSERT_OK(db->store().CreateSnapshot("two", "", {}).status());
}

// The mode that answers a text search naming none, on a new store with `embedder`;
// with `explicit_mode`, the mode that answers one naming it.
std::string ModeThatAnswers(const std::string& path, const std::string& embedder,
                            std::optional<SearchMode> explicit_mode = std::nullopt) {
  std::filesystem::remove_all(path);
  DbOptions options;
  options.background_indexing = false;
  options.sync_on_commit = false;
  options.embedder = embedder;
  auto db = Db::Create(path, options);
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  if (!db.ok()) return "";
  auto tree = (*db)->store().Tree();
  EXPECT_TRUE(tree.ok() && test::PutFile(tree->get(), "a.md", "kubernetes ingress notes").ok());
  SearchRequest r;
  r.query = "ingress";
  r.mode = explicit_mode;
  auto result = (*db)->Search(r, /*wait=*/true);
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  return result.ok() ? result->mode : "";
}

TEST_F(DbTest, TheDefaultModeFollowsTheEmbedder) {
  // Word vectors and hash: lexical (their fusion ranks below BM25).
  EXPECT_EQ(ModeThatAnswers(path_, "hash"), "lexical");
  // An exec model that declares itself a sentence model: hybrid.
  std::string script = dir_.path() + "/sentence_embedder.py";
  std::ofstream(script) << "import json, sys\n"
                           "for line in sys.stdin:\n"
                           "    m = json.loads(line)\n"
                           "    if m.get('op') == 'info':\n"
                           "        print(json.dumps({'model': 's2', 'dim': 2, 'kind': 'sentence'}))\n"
                           "    else:\n"
                           "        print(json.dumps([1.0, float(len(m['text']) % 7)]))\n"
                           "    sys.stdout.flush()\n";
  std::string sentence = "exec:exec python3 " + script;
  EXPECT_EQ(ModeThatAnswers(path_, sentence), "hybrid");
  // An explicit mode still wins.
  EXPECT_EQ(ModeThatAnswers(path_, sentence, SearchMode::kLexical), "lexical");
}

TEST_F(DbTest, BadOptionsAreRefusedAndLeaveNothingBehind) {
  DbOptions bad;
  bad.embedder = "no-such-embedder";
  auto db = Db::Create(path_, bad);
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().code(), StatusCode::kInvalidArgument) << db.status().ToString();
  EXPECT_FALSE(std::filesystem::exists(path_ + "/data.mdb"));
  EXPECT_EQ(Db::Open(path_).status().code(), StatusCode::kNotFound);
  auto created = CreateDb();
  ASSERT_NE(created, nullptr);
  created.reset();
  DbOptions branch;
  branch.branch = "no-such-branch";
  EXPECT_EQ(Db::Open(path_, branch).status().code(), StatusCode::kNotFound);
  DbOptions read_only;
  read_only.read_only = true;
  EXPECT_EQ(Db::Create(dir_.path() + "/other", read_only).status().code(),
            StatusCode::kInvalidArgument);
  ASSIGN_OR_FAIL(auto ro, Db::Open(path_, read_only));
  EXPECT_FALSE(ro->background_indexing());
  EXPECT_EQ(ro->WaitIndexed().code(), StatusCode::kReadOnly);
}

}  // namespace
}  // namespace vexfs
