// The store's extension interface (vexfs/extension.h), exercised
// by a small "notes" extension of the kind the search index and the memory graph
// are: registered tables that survive reopening, records written in the store's
// own transaction (kept or lost with the edit, also when the process dies),
// per-inode records that follow their inode through unlink, branch copy, restore
// and branch deletion, the change feed with two independent subscribers, gc
// roots and fsck checks; and a versioning "journal" extension whose data every
// snapshot carries as a root of its own beside the file tree.
#include <sys/wait.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "store/change_feed.h"
#include "store/journal_extension.h"
#include "store/store_impl.h"
#include "test_util.h"
#include "vexfs/extension.h"
#include "vexfs/store.h"

namespace vexfs {
namespace {


constexpr uint32_t kMain = 1;  // branch id of "main" in a new store

// An extension that keeps one object alive per record of its "roots" table, and
// calls a record malformed when its value is "bad".
class NotesExtension : public Extension {
 public:
  explicit NotesExtension(Table roots) : roots_(roots) {}
  const std::string& name() const override { return name_; }
  bool keeps_objects() const override { return true; }
  Status AddGcRoots(const StoreTxn& txn, std::vector<ObjectId>* roots) override {
    VEXFS_ASSIGN_OR_RETURN(auto rows, txn.Scan(roots_, ""));
    for (const auto& [key, value] : rows) {
      if (value.size() == 32) roots->push_back(ObjectId::FromBytes(value));  // Check() reports the rest
    }
    return Status::Ok();
  }
  Status Check(const StoreTxn& txn, FsckReport* report) override {
    VEXFS_ASSIGN_OR_RETURN(auto rows, txn.Scan(roots_, ""));
    for (const auto& [key, value] : rows) {
      if (value.size() != 32) report->problems.push_back("notes: root '" + key + "' is malformed");
    }
    return Status::Ok();
  }

 private:
  std::string name_ = "notes";
  Table roots_;
};

class ExtensionTest : public ::testing::Test {
 protected:
  void SetUp() override { store_ = test::CreateStoreOrDie(path()); }
  std::string path() const { return dir_.Sub("store"); }
  internal::StoreImpl* impl() { return internal::ImplOf(store_.get()); }

  // Registers the notes tables: per-inode notes and global gc roots.
  std::pair<Table, Table> RegisterNotes() {
    auto tables = RegisterTables(store_.get(), {{"notes", TableScope::kPerInode},
                                                {"notes_roots", TableScope::kGlobal}});
    EXPECT_OK(tables.status());
    return tables.ok() ? std::pair{(*tables)[0], (*tables)[1]} : std::pair<Table, Table>{};
  }

  uint64_t Ino(std::string_view path, std::string_view branch = "") {
    auto tree = store_->Tree(branch);
    EXPECT_OK(tree.status());
    auto attrs = (*tree)->Stat(path);
    EXPECT_OK(attrs.status());
    return attrs.ok() ? attrs->ino : 0;
  }

  // Writes `path` and, in the same transaction, a note about it.
  Status PutWithNote(std::string_view path, Table notes, std::string_view note,
                     bool fail_after = false) {
    auto tree = store_->Tree();
    if (!tree.ok()) return tree.status();
    return (*tree)->Edit([&](TreeEditor& ed) -> Status {
      VEXFS_ASSIGN_OR_RETURN(Attributes a, ed.PutFile(path, "content of " + std::string(path), {}));
      StoreTxn txn = TransactionOf(ed);
      VEXFS_RETURN_IF_ERROR(txn.Put(notes, InodeKeyPrefix(txn.branch_id(), a.ino), note));
      return fail_after ? Status::InvalidArgument("the edit changes its mind") : Status::Ok();
    });
  }

  std::optional<std::string> Get(Table table, const std::string& key) {
    StoreTxn txn;
    EXPECT_OK(txn.Begin(store_.get(), false));
    auto found = txn.Get(table, key);
    EXPECT_OK(found.status());
    if (!found.ok() || !found->has_value()) return std::nullopt;
    return std::string(**found);
  }

  FeedSubscription Subscribe(std::string_view name) {
    StoreTxn txn;
    EXPECT_OK(txn.Begin(store_.get(), true));
    auto sub = txn.Subscribe(name);
    EXPECT_OK(sub.status());
    EXPECT_OK(txn.Commit());
    return sub.ok() ? sub->first : FeedSubscription();
  }

  // The stamp of `entry` in `sub`'s set, or nullopt.
  std::optional<std::string> Stamp(const FeedSubscription& sub, const std::string& entry) {
    StoreTxn txn;
    EXPECT_OK(txn.Begin(store_.get(), false));
    auto items = sub.Peek(txn, entry, 1);
    EXPECT_OK(items.status());
    if (!items.ok() || items->empty() || (*items)[0].entry != entry) return std::nullopt;
    return (*items)[0].stamp;
  }

  test::TempDir dir_;
  std::unique_ptr<Store> store_;
};

TEST_F(ExtensionTest, RegisteredTablesAreDurableAndOpenedOnReopen) {
  auto [notes, roots] = RegisterNotes();
  ASSERT_OK(PutWithNote("a.txt", notes, "first note"));
  uint64_t ino = Ino("a.txt");
  store_.reset();
  store_ = test::OpenStoreOrDie(path());
  // Opened at Open(), before any extension asks for them again.
  auto tables = impl()->tables();
  ASSERT_EQ(tables->size(), 2u);
  EXPECT_EQ((*tables)[0].name, "notes");
  EXPECT_EQ((*tables)[0].scope, TableScope::kPerInode);
  EXPECT_EQ((*tables)[1].name, "notes_roots");
  EXPECT_EQ(Get(Table((*tables)[0].dbi), InodeKeyPrefix(kMain, ino)), "first note");
  // Registering again is idempotent and gives the same handles.
  auto [again, roots_again] = RegisterNotes();
  EXPECT_EQ(again, Table((*tables)[0].dbi));
  EXPECT_EQ(roots_again, Table((*tables)[1].dbi));
  (void)notes;
  (void)roots;
}

TEST_F(ExtensionTest, RegistrationRefusesBadNamesAndChangedScopes) {
  RegisterNotes();
  EXPECT_CODE(impl()->RegisterTables({{"notes", TableScope::kGlobal}}), StatusCode::kInvalidArgument);
  EXPECT_CODE(impl()->RegisterTables({{"Notes", TableScope::kGlobal}}), StatusCode::kInvalidArgument);
  EXPECT_CODE(impl()->RegisterTables({{"", TableScope::kGlobal}}), StatusCode::kInvalidArgument);
  EXPECT_CODE(impl()->RegisterTables({{std::string(65, 'a'), TableScope::kGlobal}}),
              StatusCode::kInvalidArgument);
  // An extension cannot take over the store's own tables.
  EXPECT_CODE(impl()->RegisterTables({{"inodes", TableScope::kGlobal}}), StatusCode::kInvalidArgument);
}

TEST_F(ExtensionTest, RecordsCommitAndAbortWithTheEdit) {
  auto [notes, roots] = RegisterNotes();
  (void)roots;
  EXPECT_CODE(PutWithNote("gone.txt", notes, "never", /*fail_after=*/true),
              StatusCode::kInvalidArgument);
  auto tree = store_->Tree();
  ASSERT_OK(tree.status());
  EXPECT_CODE((*tree)->Stat("gone.txt"), StatusCode::kNotFound);
  StoreTxn txn;
  ASSERT_OK(txn.Begin(store_.get(), false));
  TableCursor cursor;
  ASSERT_OK(cursor.Open(txn, notes));
  ASSIGN_OR_FAIL(bool any, cursor.First());
  EXPECT_FALSE(any) << "a note of an aborted edit was kept";
}

// A process killed inside the edit leaves neither the file nor its note; one
// killed right after the commit leaves both.
TEST_F(ExtensionTest, AKilledWriterLeavesFileAndNoteTogetherOrNeither) {
  RegisterNotes();
  store_.reset();
  for (bool die_before_commit : {true, false}) {
    std::string name = die_before_commit ? "killed.txt" : "kept.txt";
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      auto store = Store::Open(path(), test::FastOptions());
      if (!store.ok()) ::_exit(2);
      auto tables = RegisterTables(store->get(), {{"notes", TableScope::kPerInode}});
      auto tree = (*store)->Tree();
      if (!tables.ok() || !tree.ok()) ::_exit(3);
      Status st = (*tree)->Edit([&](TreeEditor& ed) -> Status {
        VEXFS_ASSIGN_OR_RETURN(Attributes a, ed.PutFile(name, "x", {}));
        StoreTxn txn = TransactionOf(ed);
        VEXFS_RETURN_IF_ERROR(txn.Put((*tables)[0], InodeKeyPrefix(kMain, a.ino), "n"));
        if (die_before_commit) ::_exit(0);  // SIGKILL-like: no destructor, no commit
        return Status::Ok();
      });
      if (!st.ok() || !(*store)->Sync().ok()) ::_exit(4);
      ::_exit(0);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  }
  store_ = test::OpenStoreOrDie(path());
  auto [notes, roots] = RegisterNotes();
  (void)roots;
  auto tree = store_->Tree();
  ASSERT_OK(tree.status());
  EXPECT_CODE((*tree)->Stat("killed.txt"), StatusCode::kNotFound);
  ASSIGN_OR_FAIL(Attributes kept, (*tree)->Stat("kept.txt"));
  EXPECT_EQ(Get(notes, InodeKeyPrefix(kMain, kept.ino)), "n");
  ASSIGN_OR_FAIL(auto rows, [&]() -> Result<size_t> {
    StoreTxn txn;
    VEXFS_RETURN_IF_ERROR(txn.Begin(store_.get(), false));
    VEXFS_ASSIGN_OR_RETURN(auto all, txn.Scan(notes, ""));
    return all.size();
  }());
  EXPECT_EQ(rows, 1u);
}

TEST_F(ExtensionTest, PerInodeRecordsFollowTheirInode) {
  auto [notes, roots] = RegisterNotes();
  (void)roots;
  ASSERT_OK(PutWithNote("a.txt", notes, "about a"));
  ASSERT_OK(PutWithNote("b.txt", notes, "about b"));
  uint64_t a = Ino("a.txt"), b = Ino("b.txt");
  ASSERT_OK(store_->CreateSnapshot("s1", "", {}).status());
  // Unlinking a file drops its records.
  auto tree = store_->Tree();
  ASSERT_OK(tree.status());
  ASSERT_OK((*tree)->Edit([&](TreeEditor& ed) { return ed.Unlink(kRootIno, "b.txt"); }));
  EXPECT_EQ(Get(notes, InodeKeyPrefix(kMain, b)), std::nullopt);
  EXPECT_EQ(Get(notes, InodeKeyPrefix(kMain, a)), "about a");
  // A branch copied from the working tree gets copies.
  ASSERT_OK(store_->CreateBranch("copy", std::nullopt));
  StoreTxn txn;
  ASSERT_OK(txn.BeginOnBranch(store_.get(), false, "copy"));
  BranchRef copy{"copy", txn.branch_id()};
  txn.Abort();
  EXPECT_EQ(Get(notes, InodeKeyPrefix(copy.id, a)), "about a");
  // A restore replaces main's working tree: its records go, the copy's stay.
  ASSERT_OK(store_->Restore("s1"));
  EXPECT_EQ(Get(notes, InodeKeyPrefix(kMain, a)), std::nullopt);
  EXPECT_EQ(Get(notes, InodeKeyPrefix(copy.id, a)), "about a");
  // Deleting the branch removes its records.
  ASSERT_OK(store_->DeleteBranch("copy"));
  EXPECT_EQ(Get(notes, InodeKeyPrefix(copy.id, a)), std::nullopt);
}

TEST_F(ExtensionTest, TheFeedTellsEachSubscriberWhatChangedUntilItConsumes) {
  FeedSubscription first = Subscribe("first");
  FeedSubscription second = Subscribe("second");
  ASSERT_TRUE(first.valid() && second.valid());
  ASSERT_OK(PutWithNote("a.txt", RegisterNotes().first, "n"));
  std::string entry = FileChangeEntry(kMain, Ino("a.txt"));
  auto stamp = Stamp(first, entry);
  ASSERT_TRUE(stamp.has_value());
  ASSERT_TRUE(Stamp(second, entry).has_value());
  // The first consumes it; the second still has it.
  {
    StoreTxn txn;
    ASSERT_OK(txn.Begin(store_.get(), true));
    ASSIGN_OR_FAIL(bool consumed, first.ConsumeIfUnchanged(&txn, entry, *stamp));
    EXPECT_TRUE(consumed);
    ASSERT_OK(txn.Commit());
  }
  EXPECT_EQ(Stamp(first, entry), std::nullopt);
  auto second_stamp = Stamp(second, entry);
  ASSERT_TRUE(second_stamp.has_value());
  // A change posted after the subscriber read the entry is not consumed with it.
  auto tree = store_->Tree();
  ASSERT_OK(tree.status());
  ASSERT_OK(test::PutFile(tree->get(), "a.txt", "changed again"));
  {
    StoreTxn txn;
    ASSERT_OK(txn.Begin(store_.get(), true));
    ASSIGN_OR_FAIL(bool consumed, second.ConsumeIfUnchanged(&txn, entry, *second_stamp));
    EXPECT_FALSE(consumed);
    ASSERT_OK(txn.Commit());
  }
  EXPECT_TRUE(Stamp(second, entry).has_value());
  // Unlinking posts that the file went.
  ASSERT_OK((*tree)->Edit([&](TreeEditor& ed) { return ed.Unlink(kRootIno, "a.txt"); }));
  EXPECT_TRUE(Stamp(first, entry).has_value());
  // A snapshot is posted only to the subscriber that has not caught up.
  {
    StoreTxn txn;
    ASSERT_OK(txn.Begin(store_.get(), true));
    ASSIGN_OR_FAIL(auto items, first.Peek(txn, "", 100));
    for (const FeedItem& item : items) ASSERT_OK(first.ConsumeIfUnchanged(&txn, item.entry, item.stamp).status());
    ASSERT_OK(txn.Commit());
  }
  ASSIGN_OR_FAIL(CommitInfo snap, store_->CreateSnapshot("s1", "", {}));
  EXPECT_EQ(Stamp(first, SnapshotChangeEntry(snap.id)), std::nullopt);
  EXPECT_TRUE(Stamp(second, SnapshotChangeEntry(snap.id)).has_value());
  // A restore posts a rescan of the whole tree.
  ASSERT_OK(store_->Restore("s1"));
  EXPECT_TRUE(Stamp(first, TreeChangeEntry(kMain)).has_value());
  StoreTxn txn;
  ASSERT_OK(txn.Begin(store_.get(), false));
  ASSIGN_OR_FAIL(uint64_t pending, second.Pending(txn));
  EXPECT_EQ(pending, 3u);  // the file, the snapshot, the rescan
}

// An abandoned subscriber can be removed: its set goes, and writes stop posting to it.
TEST_F(ExtensionTest, UnsubscribingDropsTheSetAndStopsPosting) {
  FeedSubscription gone = Subscribe("gone");
  FeedSubscription stays = Subscribe("stays");
  ASSERT_OK(test::PutFile(store_->Tree()->get(), "a.txt", "a"));
  {
    StoreTxn txn;
    ASSERT_OK(txn.Begin(store_.get(), true));
    ASSERT_OK(txn.Unsubscribe("gone"));
    ASSERT_OK(txn.Unsubscribe("never_was"));
    ASSERT_OK(txn.Commit());
  }
  ASSERT_OK(test::PutFile(store_->Tree()->get(), "b.txt", "b"));
  StoreTxn txn;
  ASSERT_OK(txn.Begin(store_.get(), false));
  ASSIGN_OR_FAIL(uint64_t left_gone, gone.Pending(txn));
  ASSIGN_OR_FAIL(uint64_t left_stays, stays.Pending(txn));
  EXPECT_EQ(left_gone, 0u);
  EXPECT_EQ(left_stays, 2u);
  ASSIGN_OR_FAIL(auto found, txn.FindSubscription("gone"));
  EXPECT_FALSE(found.has_value());
}

// Another process that subscribes after this one opened the store is fed by
// this one's next write.
TEST_F(ExtensionTest, ASubscriberAddedByAnotherProcessIsFedAtOnce) {
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto store = Store::Open(path(), test::FastOptions());
    if (!store.ok()) ::_exit(2);
    StoreTxn txn;
    if (!txn.Begin(store->get(), true).ok()) ::_exit(3);
    auto sub = txn.Subscribe("late");
    ::_exit(sub.ok() && sub->second && txn.Commit().ok() ? 0 : 4);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  auto tree = store_->Tree();
  ASSERT_OK(tree.status());
  ASSERT_OK(test::PutFile(tree->get(), "x.txt", "x"));
  StoreTxn txn;
  ASSERT_OK(txn.Begin(store_.get(), true));
  ASSIGN_OR_FAIL(auto again, txn.Subscribe("late"));
  EXPECT_FALSE(again.second) << "subscribing again is not new";
  txn.Abort();
  FeedSubscription late = again.first;
  EXPECT_TRUE(Stamp(late, FileChangeEntry(kMain, Ino("x.txt"))).has_value());
}

TEST_F(ExtensionTest, GcKeepsAnAttachedExtensionsRootsAndRefusesWithoutIt) {
  auto [notes, roots] = RegisterNotes();
  (void)notes;
  ObjectId kept, dropped;
  {
    StoreTxn txn;
    ASSERT_OK(txn.Begin(store_.get(), true));
    ASSIGN_OR_FAIL(kept, txn.PutBlob("kept by a note"));
    ASSIGN_OR_FAIL(dropped, txn.PutBlob("kept by nothing"));
    ASSERT_OK(txn.Put(roots, "r1", kept.AsBytes()));
    ASSERT_OK(txn.Commit());
  }
  ASSERT_OK(AttachExtension(store_.get(), std::make_shared<NotesExtension>(roots)));
  EXPECT_CODE(AttachExtension(store_.get(), std::make_shared<NotesExtension>(roots)),
              StatusCode::kAlreadyExists);
  ASSIGN_OR_FAIL(GcReport report, store_->Gc());
  EXPECT_EQ(report.objects_freed, 1u);
  auto present = [&](const ObjectId& id) {
    StoreTxn txn;
    EXPECT_OK(txn.Begin(store_.get(), false));
    return txn.GetBlob(id).ok();
  };
  EXPECT_TRUE(present(kept));
  EXPECT_FALSE(present(dropped));
  // Where the extension is not attached, gc refuses and deletes nothing.
  store_.reset();
  store_ = test::OpenStoreOrDie(path());
  {
    StoreTxn txn;
    ASSERT_OK(txn.Begin(store_.get(), true));
    ASSIGN_OR_FAIL(dropped, txn.PutBlob("garbage again"));
    ASSERT_OK(txn.Commit());
  }
  auto refused = store_->Gc();
  ASSERT_CODE(refused, StatusCode::kNotSupported);
  EXPECT_NE(refused.status().message().find("'notes'"), std::string::npos);
  EXPECT_TRUE(present(kept));
  EXPECT_TRUE(present(dropped));
}

TEST_F(ExtensionTest, FsckRunsTheExtensionsCheckAndChecksItsRoots) {
  auto [notes, roots] = RegisterNotes();
  (void)notes;
  ASSERT_OK(AttachExtension(store_.get(), std::make_shared<NotesExtension>(roots)));
  ASSIGN_OR_FAIL(FsckReport clean, store_->Fsck());
  EXPECT_TRUE(clean.ok()) << ::testing::PrintToString(clean.problems);
  {
    StoreTxn txn;
    ASSERT_OK(txn.Begin(store_.get(), true));
    ASSERT_OK(txn.Put(roots, "broken", "bad"));
    ASSERT_OK(txn.Put(roots, "dangling", std::string(32, '\x07')));
    ASSERT_OK(txn.Commit());
  }
  ASSIGN_OR_FAIL(FsckReport report, store_->Fsck());
  ASSERT_EQ(report.problems.size(), 2u) << ::testing::PrintToString(report.problems);
  std::string all = ::testing::PrintToString(report.problems);
  EXPECT_NE(all.find("notes: root 'broken' is malformed"), std::string::npos) << all;
  EXPECT_NE(all.find("extension 'notes' references missing object 0707"), std::string::npos) << all;
}

// Snapshots carry the journal beside the files; restore, branches from snapshots
// and diff see both; gc keeps what only a snapshot's journal root reaches.
TEST_F(ExtensionTest, SnapshotsCarryAnExtensionsDataBesideTheFiles) {
  ASSIGN_OR_FAIL(auto journal, test::JournalExtension::AttachTo(store_.get()));
  auto tree = store_->Tree();
  ASSERT_OK(tree.status());
  ASSERT_OK(test::PutFile(tree->get(), "plan.md", "plan A"));
  ASSIGN_OR_FAIL(CommitInfo s0, store_->CreateSnapshot("s0", "files only", {}));
  EXPECT_TRUE(s0.roots.empty()) << "an empty journal adds no root";
  ASSERT_OK(journal->Write(store_.get(), {"turn 1: user asked for plan A", "fact: budget 10"}));
  ASSIGN_OR_FAIL(CommitInfo s1, store_->CreateSnapshot("s1", "plan A", {}));
  ASSERT_EQ(s1.roots.size(), 1u);
  ASSERT_TRUE(s1.roots.count("journal"));
  ASSERT_OK(test::PutFile(tree->get(), "plan.md", "plan B"));
  ASSERT_OK(journal->Write(store_.get(), {"turn 2: re-planned", "fact: budget 20"}));
  ASSIGN_OR_FAIL(CommitInfo s2, store_->CreateSnapshot("s2", "plan B", {}));
  EXPECT_NE(s2.roots.at("journal"), s1.roots.at("journal"));
  ASSIGN_OR_FAIL(auto log, store_->Log());
  ASSERT_EQ(log.size(), 3u);
  EXPECT_EQ(log[1].roots, s1.roots);

  // Diff: file changes, and the journal root added, then modified.
  ASSIGN_OR_FAIL(auto added, store_->Diff("s0", "s1"));
  ASSERT_EQ(added.size(), 1u);
  EXPECT_EQ(added[0].root, "journal");
  EXPECT_EQ(added[0].kind, DiffEntry::Kind::kAdded);
  ASSIGN_OR_FAIL(auto changed, store_->Diff("s1", "s2"));
  ASSERT_EQ(changed.size(), 2u);
  EXPECT_EQ(changed[0].path, "plan.md");
  EXPECT_EQ(changed[1].root, "journal");
  EXPECT_EQ(changed[1].kind, DiffEntry::Kind::kModified);
  ASSIGN_OR_FAIL(auto removed, store_->Diff("s2", "s0"));
  EXPECT_EQ(removed.back().kind, DiffEntry::Kind::kRemoved);

  // Restore brings back both, in one transaction.
  ASSERT_OK(store_->Restore("s1"));
  ASSIGN_OR_FAIL(auto lines, journal->Read(store_.get()));
  EXPECT_EQ(lines, (std::vector<std::string>{"turn 1: user asked for plan A", "fact: budget 10"}));
  ASSIGN_OR_FAIL(std::string plan, (*tree)->ReadAll("plan.md"));
  EXPECT_EQ(plan, "plan A");
  ASSERT_OK(store_->Restore("s0"));
  ASSIGN_OR_FAIL(lines, journal->Read(store_.get()));
  EXPECT_TRUE(lines.empty()) << "a snapshot without a journal root restores an empty journal";

  // A branch from a snapshot starts with that snapshot's journal; one from the
  // working tree with a copy of the working journal.
  ASSERT_OK(store_->CreateBranch("from_s2", std::string("s2")));
  ASSIGN_OR_FAIL(lines, journal->Read(store_.get(), "from_s2"));
  EXPECT_EQ(lines, (std::vector<std::string>{"turn 2: re-planned", "fact: budget 20"}));
  ASSERT_OK(journal->Write(store_.get(), {"working line"}));
  ASSERT_OK(store_->CreateBranch("copy", std::nullopt));
  ASSIGN_OR_FAIL(lines, journal->Read(store_.get(), "copy"));
  EXPECT_EQ(lines, std::vector<std::string>{"working line"});

  // Only snapshot s2's journal root reaches its lines: gc keeps them, fsck walks them.
  ASSERT_OK(store_->DeleteBranch("from_s2"));
  ASSERT_OK(store_->Gc().status());
  ASSIGN_OR_FAIL(FsckReport fsck, store_->Fsck());
  EXPECT_TRUE(fsck.ok()) << ::testing::PrintToString(fsck.problems);
  ASSERT_OK(store_->Restore("s2"));
  ASSIGN_OR_FAIL(lines, journal->Read(store_.get()));
  EXPECT_EQ(lines, (std::vector<std::string>{"turn 2: re-planned", "fact: budget 20"}));
}

// Where the versioning extension is not attached, nothing that would leave its
// data out runs; reading snapshots and gc still do.
TEST_F(ExtensionTest, WithoutTheVersioningExtensionSnapshotsAndRestoresRefuse) {
  {
    ASSIGN_OR_FAIL(auto journal, test::JournalExtension::AttachTo(store_.get()));
    ASSERT_OK(journal->Write(store_.get(), {"remember this"}));
    ASSERT_OK(store_->CreateSnapshot("s1", "", {}).status());
  }
  store_.reset();
  store_ = test::OpenStoreOrDie(path());
  EXPECT_CODE(store_->CreateSnapshot("s2", "", {}), StatusCode::kNotSupported);
  EXPECT_CODE(store_->Restore("s1"), StatusCode::kNotSupported);
  EXPECT_CODE(store_->CreateBranch("b", std::string("s1")), StatusCode::kNotSupported);
  ASSIGN_OR_FAIL(auto snapshots, store_->ListSnapshots());
  EXPECT_EQ(snapshots.size(), 1u);
  ASSERT_OK(store_->Gc().status());
  ASSIGN_OR_FAIL(auto journal, test::JournalExtension::AttachTo(store_.get()));
  ASSERT_OK(journal->Write(store_.get(), {}));
  ASSERT_OK(store_->Restore("s1"));
  ASSIGN_OR_FAIL(auto lines, journal->Read(store_.get()));
  EXPECT_EQ(lines, std::vector<std::string>{"remember this"});
}

// Damage to the change feed is reported, not fatal.
TEST_F(ExtensionTest, FsckReportsAStrayOrDamagedFeedEntry) {
  ASSERT_TRUE(Subscribe("checked").valid());
  ASSERT_OK(test::PutFile(store_->Tree()->get(), "a.txt", "a"));
  ASSIGN_OR_FAIL(FsckReport clean, store_->Fsck());
  EXPECT_TRUE(clean.ok()) << ::testing::PrintToString(clean.problems);
  {
    internal::Txn txn;
    ASSERT_OK(impl()->BeginTxn(&txn, true));
    internal::FeedSet stray(impl()->dbs().feed, 0x7777);
    ASSERT_OK(txn.Put(impl()->dbs().feed, stray.Key("f123"), std::string(8, '\0')));
    ASSIGN_OR_FAIL(auto id, internal::FindSubscriber(txn, impl()->dbs(), "checked"));
    ASSERT_TRUE(id.has_value());
    internal::FeedSet checked(impl()->dbs().feed, *id);
    ASSERT_OK(txn.Put(impl()->dbs().feed, checked.Key(TreeChangeEntry(kMain)), "short"));
    ASSERT_OK(txn.Commit());
  }
  ASSIGN_OR_FAIL(FsckReport report, store_->Fsck());
  std::string all = ::testing::PrintToString(report.problems);
  ASSERT_EQ(report.problems.size(), 2u) << all;
  EXPECT_NE(all.find("entry of no subscriber"), std::string::npos) << all;
  EXPECT_NE(all.find("malformed stamp"), std::string::npos) << all;
}

// A commit whose journal root is gone is a problem fsck names.
TEST_F(ExtensionTest, FsckFollowsEveryRootOfACommit) {
  ASSIGN_OR_FAIL(auto journal, test::JournalExtension::AttachTo(store_.get()));
  ASSERT_OK(journal->Write(store_.get(), {"a line"}));
  ASSIGN_OR_FAIL(CommitInfo s1, store_->CreateSnapshot("s1", "", {}));
  ObjectId root = s1.roots.at("journal");
  {
    internal::Txn txn;
    ASSERT_OK(impl()->BeginTxn(&txn, true));
    ASSIGN_OR_FAIL(bool deleted, txn.Delete(impl()->dbs().objects, root.AsBytes()));
    EXPECT_TRUE(deleted);
    ASSERT_OK(txn.Commit());
  }
  ASSIGN_OR_FAIL(FsckReport report, store_->Fsck());
  std::string all = ::testing::PrintToString(report.problems);
  EXPECT_NE(all.find("references missing object " + root.ToHex()), std::string::npos) << all;
  EXPECT_CODE(store_->Restore("s1"), StatusCode::kNotFound);
}

}  // namespace
}  // namespace vexfs
