// Stores written by earlier releases keep opening: tests/fixtures/store-format-1/
// is a small store in format 1, written by the build of 2026-12-05 that added this
// test (tests/fixtures/make_store_format_1.sh says how) and never rewritten, so it
// guards every later change of the format. Each test opens a copy with today's
// code and checks that everything in it reads as it was written: files of every
// type, xattrs, both snapshots and their diff, the second branch, the
// unsnapshotted change, search (its LMDB records are in the fixture; the derived
// Xapian and FAISS files are not, so they are rebuilt from those records), and a
// clean fsck; then that the store takes new writes and snapshots and reopens.
#include <filesystem>

#include "index/search_tables.h"
#include "store/change_feed.h"
#include "store/journal_extension.h"
#include "store/store_impl.h"
#include "test_util.h"
#include "vexfs/extension.h"
#include "vexfs/index.h"
#include "vexfs/store.h"

namespace vexfs {
namespace {

namespace fs = std::filesystem;
using test::DumpTree;
using test::OpenStoreOrDie;
using test::PutFile;
using test::TempDir;
using test::TreeDump;

class FormatUpgradeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::copy(VEXFS_STORE_FORMAT_1_FIXTURE, dir_.Sub("store"), fs::copy_options::recursive);
  }
  std::string path() const { return dir_.Sub("store"); }

  TempDir dir_;
};

// The tree of `view` as DumpTree shows it, or a failed test.
// The format the store's meta records.
std::string Format(Store& store) {
  internal::Txn txn;
  EXPECT_OK(internal::ImplOf(&store)->BeginTxn(&txn, false));
  auto format = txn.Get(internal::ImplOf(&store)->dbs().meta, "format");
  EXPECT_TRUE(format.ok() && format->has_value());
  return format.ok() && format->has_value() ? std::string(**format) : "";
}

// Whether the LMDB environment of `store` has a named table `name`.
bool HasTable(Store& store, const char* name) {
  internal::Txn txn;
  EXPECT_OK(internal::ImplOf(&store)->BeginTxn(&txn, false));
  MDB_dbi dbi = 0;
  return mdb_dbi_open(txn.raw(), name, 0, &dbi) == MDB_SUCCESS;
}

// The best hit of `query` (in snapshot `at`, or the working tree) is `path`.
void ExpectTopHit(Index& index, const std::string& query, const std::string& at,
                  const std::string& path) {
  SearchRequest request;
  request.query = query;
  request.snapshot = at;
  auto found = index.Search(request);
  ASSERT_OK(found.status());
  ASSERT_FALSE(found->hits.empty()) << query;
  EXPECT_EQ(found->hits[0].path, path) << query;
}

TreeDump Dump(Store& store, std::string_view at, std::string_view branch = "") {
  auto view = store.OpenView(at, branch);
  EXPECT_TRUE(view.ok()) << view.status().ToString();
  if (!view.ok()) return {};
  auto dump = DumpTree(view->get());
  EXPECT_TRUE(dump.ok()) << dump.status().ToString();
  return dump.ok() ? *dump : TreeDump{};
}

const std::string kBig(200000, 'x');

TEST_F(FormatUpgradeTest, EveryVersionOfEveryFileReadsAsWritten) {
  auto store = OpenStoreOrDie(path());
  TreeDump first = {{"big.bin", "file:" + kBig},
                    {"link", "link:notes/lighthouse.md"},
                    {"notes", "dir"},
                    {"notes/deep", "dir"},
                    {"notes/deep/tides.txt", "file:Tide tables for the northern harbour.\n"},
                    {"notes/lighthouse.md", "file:The lighthouse keeper trims the wick at dusk.\n"},
                    {"pipe", "fifo:0"}};
  EXPECT_EQ(Dump(*store, "first"), first);

  TreeDump second = first;
  second.erase("notes/deep/tides.txt");
  second["notes/lighthouse.md"] = "file:Replanned: sail at dawn.\n";
  EXPECT_EQ(Dump(*store, "second"), second);

  TreeDump working = second;
  working["scratch.txt"] = "file:unsnapshotted work\n";
  EXPECT_EQ(Dump(*store, "", "main"), working);
  EXPECT_EQ(Dump(*store, "", "experiment"), first);
}

TEST_F(FormatUpgradeTest, HistoryBranchesXattrsAndDiffSurvive) {
  auto store = OpenStoreOrDie(path());
  ASSIGN_OR_FAIL(auto log, store->Log("main"));
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0].names, std::vector<std::string>{"second"});
  EXPECT_EQ(log[0].message, "after the replan");
  EXPECT_EQ(log[1].names, std::vector<std::string>{"first"});
  ASSERT_EQ(log[0].parents.size(), 1u);
  EXPECT_EQ(log[0].parents[0], log[1].id);

  ASSIGN_OR_FAIL(auto branches, store->ListBranches());
  ASSERT_EQ(branches.size(), 2u);
  EXPECT_EQ(branches[0].name, "experiment");
  EXPECT_EQ(branches[0].head, log[1].id);
  EXPECT_TRUE(branches[1].current);

  ASSIGN_OR_FAIL(auto view, store->OpenView("first"));
  ASSIGN_OR_FAIL(XattrMap xattrs, view->Xattrs("notes/lighthouse.md"));
  EXPECT_EQ(xattrs[MetaXattrName("topic")], "sea");

  ASSIGN_OR_FAIL(auto diff, store->Diff("first", "second"));
  std::map<std::string, std::string> changes;
  for (const DiffEntry& e : diff) changes[e.path] = DiffKindName(e.kind);
  EXPECT_EQ(changes, (std::map<std::string, std::string>{{"notes/deep/tides.txt", "removed"},
                                                         {"notes/lighthouse.md", "modified"}}));
  ASSIGN_OR_FAIL(FsckReport fsck, store->Fsck({}));
  EXPECT_TRUE(fsck.ok()) << ::testing::PrintToString(fsck.problems);
}

// Format 2 added the change feed and the extension registry: opening for
// writing upgrades in place. A process of the older release that still has the
// store open keeps queueing in format 1's queue table; the index adopts those
// entries, so nothing it queued is lost.
TEST_F(FormatUpgradeTest, OpeningForWritingUpgradesToFormat2) {
  {
    StoreOptions read_only = test::FastOptions();
    read_only.read_only = true;
    auto store = OpenStoreOrDie(path(), read_only);
    EXPECT_EQ(Format(*store), "1");
  }
  auto store = OpenStoreOrDie(path());
  EXPECT_EQ(Format(*store), "2");
  EXPECT_TRUE(HasTable(*store, "feed"));
  ASSIGN_OR_FAIL(auto index, Index::Open(store.get()));
  ASSERT_OK(index->Wait());
  // As the older process would: a new file, queued the format-1 way.
  ASSIGN_OR_FAIL(auto tree, store->Tree());
  ASSERT_OK(PutFile(tree.get(), "late.md", "the keeper logs a late ferry"));
  ASSIGN_OR_FAIL(Attributes late, tree->Stat("late.md"));
  ASSIGN_OR_FAIL(index::IndexTables ix, index::SearchTables(store.get()));
  {
    StoreTxn txn;
    ASSERT_OK(txn.Begin(store.get(), true));
    ASSIGN_OR_FAIL(auto fed, ix.work.Peek(txn, "", 100));
    for (const FeedItem& item : fed) {  // not fed: only the format-1 queue has it
      ASSERT_OK(ix.work.ConsumeIfUnchanged(&txn, item.entry, item.stamp).status());
    }
    ASSERT_OK(txn.Put(ix.legacy_queue, FileChangeEntry(1, late.ino), std::string(8, '\1')));
    ASSERT_OK(txn.Commit());
  }
  ASSERT_OK(index->Wait());
  ExpectTopHit(*index, "ferry", "", "late.md");
  StoreTxn txn;
  ASSERT_OK(txn.Begin(store.get(), false));
  TableCursor cursor;
  ASSERT_OK(cursor.Open(txn, ix.legacy_queue));
  ASSIGN_OR_FAIL(bool left, cursor.First());
  EXPECT_FALSE(left);
}

// Read-only media: a format-1 store is read as it is, search included.
TEST_F(FormatUpgradeTest, AFormat1StoreReadsAndSearchesReadOnly) {
  StoreOptions read_only = test::FastOptions();
  read_only.read_only = true;
  auto store = OpenStoreOrDie(path(), read_only);
  EXPECT_EQ(Dump(*store, "first")["notes/lighthouse.md"],
            "file:The lighthouse keeper trims the wick at dusk.\n");
  ASSIGN_OR_FAIL(auto index, Index::Open(store.get()));
  ExpectTopHit(*index, "lighthouse wick", "first", "notes/lighthouse.md");
  EXPECT_EQ(Format(*store), "1");
  EXPECT_CODE(Index::Enable(store.get()), StatusCode::kReadOnly);
}

TEST_F(FormatUpgradeTest, SearchWorksFromTheStoredIndexRecords) {
  auto store = OpenStoreOrDie(path());
  ASSIGN_OR_FAIL(auto index, Index::Open(store.get()));
  ASSERT_OK(index->Wait());
  ExpectTopHit(*index, "lighthouse wick", "first", "notes/lighthouse.md");
  ExpectTopHit(*index, "dawn", "", "notes/lighthouse.md");
}

TEST_F(FormatUpgradeTest, TakesNewWorkAndReopens) {
  {
    auto store = OpenStoreOrDie(path());
    ASSIGN_OR_FAIL(auto tree, store->Tree());
    ASSERT_OK(PutFile(tree.get(), "notes/new.md", "written after the upgrade"));
    ASSERT_OK(store->CreateSnapshot("third", "new work", {}).status());
  }
  auto store = OpenStoreOrDie(path());
  TreeDump third = Dump(*store, "third");
  EXPECT_EQ(third["notes/new.md"], "file:written after the upgrade");
  EXPECT_EQ(third["scratch.txt"], "file:unsnapshotted work\n");
  ASSIGN_OR_FAIL(auto log, store->Log("third"));
  ASSERT_EQ(log.size(), 3u);
  EXPECT_EQ(log[1].names, std::vector<std::string>{"second"});
  ASSIGN_OR_FAIL(FsckReport fsck, store->Fsck({}));
  EXPECT_TRUE(fsck.ok()) << ::testing::PrintToString(fsck.problems);
}

// Format 2 commits name roots besides the file tree. On an upgraded store, a
// versioning extension's data joins the next snapshot; the old snapshots, which
// have no such root, diff and restore against it.
TEST_F(FormatUpgradeTest, NewSnapshotsCarryMoreRootsThanTheOldOnes) {
  auto store = OpenStoreOrDie(path());
  ASSIGN_OR_FAIL(auto journal, test::JournalExtension::AttachTo(store.get()));
  ASSERT_OK(journal->Write(store.get(), {"learned after the upgrade"}));
  ASSIGN_OR_FAIL(CommitInfo third, store->CreateSnapshot("third", "with a journal", {}));
  ASSERT_EQ(third.roots.count("journal"), 1u);
  ASSIGN_OR_FAIL(auto diff, store->Diff("second", "third"));
  ASSERT_FALSE(diff.empty());
  EXPECT_EQ(diff.back().root, "journal");
  EXPECT_EQ(diff.back().kind, DiffEntry::Kind::kAdded);
  ASSERT_OK(store->Restore("first"));
  ASSIGN_OR_FAIL(auto lines, journal->Read(store.get()));
  EXPECT_TRUE(lines.empty());
  EXPECT_EQ(Dump(*store, "")["notes/lighthouse.md"],
            "file:The lighthouse keeper trims the wick at dusk.\n");
  ASSERT_OK(store->Restore("third"));
  ASSIGN_OR_FAIL(lines, journal->Read(store.get()));
  EXPECT_EQ(lines, std::vector<std::string>{"learned after the upgrade"});
  ASSERT_OK(store->Gc().status());
  ASSIGN_OR_FAIL(FsckReport fsck, store->Fsck({}));
  EXPECT_TRUE(fsck.ok()) << ::testing::PrintToString(fsck.problems);
  ASSIGN_OR_FAIL(auto log, store->Log("third"));
  ASSERT_EQ(log.size(), 3u);
  EXPECT_TRUE(log[1].roots.empty());
}

}  // namespace
}  // namespace vexfs
