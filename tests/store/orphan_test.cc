// Files unlinked while open (orphans): they keep their data until released, are in
// no listing, snapshot or search queue, survive a reopen as orphans, and a purge
// removes them; fsck accepts them and flags a stray orphan record.
#include <gtest/gtest.h>

#include <string>

#include "store/change_feed.h"
#include "store/store_impl.h"
#include "test_util.h"
#include "vexfs/store.h"

namespace vexfs {
namespace {

using test::FsckClean;
using test::StoreTest;
using LastLink = TreeEditor::LastLink;

class OrphanTest : public StoreTest {
 protected:
  std::string ReadIno(uint64_t ino) {
    std::string out;
    Status st = tree().View([&](TreeEditor& ed) -> Status {
      VEXFS_ASSIGN_OR_RETURN(out, ed.Read(ino, 0, 1 << 20));
      return Status::Ok();
    });
    return st.ok() ? out : "<" + st.ToString() + ">";
  }
  Result<Attributes> AttrOf(uint64_t ino) {
    Attributes a;
    Status st = tree().View([&](TreeEditor& ed) -> Status {
      VEXFS_ASSIGN_OR_RETURN(a, ed.GetAttr(ino));
      return Status::Ok();
    });
    if (!st.ok()) return st;
    return a;
  }
};

TEST_F(OrphanTest, UnlinkKeepsDataUntilRelease) {
  ASSERT_OK(Put("a.txt", "still here"));
  uint64_t ino = Ino("a.txt");
  ASSERT_OK(
      Edit([](TreeEditor& ed) { return ed.Unlink(kRootIno, "a.txt", LastLink::kKeepOrphan); }));
  EXPECT_FALSE(tree().Stat("a.txt").ok());
  EXPECT_EQ(ReadIno(ino), "still here");
  ASSIGN_OR_FAIL(Attributes a, AttrOf(ino));
  EXPECT_EQ(a.nlink, 0u);
  // Writes to an open, unlinked file still work.
  ASSERT_OK(Edit([&](TreeEditor& ed) { return ed.Write(ino, 10, "!"); }));
  EXPECT_EQ(ReadIno(ino), "still here!");
  EXPECT_TRUE(FsckClean(store()));

  ASSERT_OK(Edit([&](TreeEditor& ed) { return ed.ReleaseOrphan(ino); }));
  EXPECT_TRUE(AttrOf(ino).status().IsNotFound());
  EXPECT_TRUE(FsckClean(store()));
  // Releasing twice, or releasing a linked file, changes nothing.
  ASSERT_OK(Edit([&](TreeEditor& ed) { return ed.ReleaseOrphan(ino); }));
  ASSERT_OK(Put("b.txt", "linked"));
  ASSERT_OK(Edit([&](TreeEditor& ed) { return ed.ReleaseOrphan(Ino("b.txt")); }));
  EXPECT_EQ(Content("b.txt"), "linked");
}

TEST_F(OrphanTest, DefaultUnlinkStillDeletes) {
  ASSERT_OK(Put("a.txt", "gone"));
  uint64_t ino = Ino("a.txt");
  ASSERT_OK(Edit([](TreeEditor& ed) { return ed.Unlink(kRootIno, "a.txt"); }));
  EXPECT_TRUE(AttrOf(ino).status().IsNotFound());
}

TEST_F(OrphanTest, OnlyTheLastLinkMakesAnOrphan) {
  ASSERT_OK(Put("a", "x"));
  uint64_t ino = Ino("a");
  ASSERT_OK(Edit([&](TreeEditor& ed) { return ed.Link(ino, kRootIno, "b").status(); }));
  ASSERT_OK(Edit([](TreeEditor& ed) { return ed.Unlink(kRootIno, "a", LastLink::kKeepOrphan); }));
  ASSIGN_OR_FAIL(Attributes a, AttrOf(ino));
  EXPECT_EQ(a.nlink, 1u);
  ASSERT_OK(Edit([&](TreeEditor& ed) { return ed.ReleaseOrphan(ino); }));  // not an orphan
  EXPECT_EQ(Content("b"), "x");
  EXPECT_TRUE(FsckClean(store()));
}

TEST_F(OrphanTest, RenameOverOpenFileKeepsTheReplacedOne) {
  ASSERT_OK(Put("old", "old bytes"));
  ASSERT_OK(Put("new", "new bytes"));
  uint64_t replaced = Ino("old");
  ASSERT_OK(Edit([](TreeEditor& ed) {
    return ed.Rename(kRootIno, "new", kRootIno, "old", TreeEditor::kRenameDefault,
                     LastLink::kKeepOrphan);
  }));
  EXPECT_EQ(Content("old"), "new bytes");
  EXPECT_EQ(ReadIno(replaced), "old bytes");
  EXPECT_TRUE(FsckClean(store()));
}

TEST_F(OrphanTest, OrphanCannotBeLinkedAgain) {
  ASSERT_OK(Put("a", "x"));
  uint64_t ino = Ino("a");
  ASSERT_OK(Edit([](TreeEditor& ed) { return ed.Unlink(kRootIno, "a", LastLink::kKeepOrphan); }));
  Status st = Edit([&](TreeEditor& ed) { return ed.Link(ino, kRootIno, "again").status(); });
  EXPECT_TRUE(st.IsNotFound()) << st.ToString();
}

TEST_F(OrphanTest, SnapshotsAndExtensionsIgnoreOrphans) {
  ASSERT_OK(Put("keep", "k"));
  ASSERT_OK(Put("a", "orphan text"));
  uint64_t ino = Ino("a");
  internal::StoreImpl* impl = internal::ImplOf(&store());
  const uint32_t branch = 1;  // "main"
  ASSIGN_OR_FAIL(auto tables, impl->RegisterTables({{"notes", internal::TableScope::kPerInode}}));
  internal::FeedSet feed;
  std::string entry = FileChangeEntry(branch, ino);
  auto waiting = [&]() -> bool {
    internal::Txn txn;
    EXPECT_OK(impl->BeginTxn(&txn, false));
    auto found = txn.Get(feed.table(), feed.Key(entry));
    return found.ok() && found->has_value();
  };
  auto consume = [&] {
    internal::Txn txn;
    ASSERT_OK(impl->BeginTxn(&txn, true));
    ASSERT_OK(internal::DeletePrefix(&txn, feed.table(), feed.prefix()));
    ASSERT_OK(txn.Commit());
  };
  {
    // As if an extension had a record of "a" and had consumed its changes.
    internal::Txn txn;
    ASSERT_OK(impl->BeginTxn(&txn, true));
    ASSIGN_OR_FAIL(auto sub, internal::Subscribe(&txn, impl->dbs(), "orphan_test"));
    feed = internal::FeedSet(impl->dbs().feed, sub.first);
    ASSERT_OK(txn.Put(tables[0], internal::InodeKey(branch, ino), "x"));
    ASSERT_OK(txn.Commit());
  }
  ASSERT_OK(Edit([](TreeEditor& ed) { return ed.Unlink(kRootIno, "a", LastLink::kKeepOrphan); }));
  {
    // Its extension records went at once, and subscribers heard that it went.
    internal::Txn txn;
    ASSERT_OK(impl->BeginTxn(&txn, false));
    ASSIGN_OR_FAIL(auto note, txn.Get(tables[0], internal::InodeKey(branch, ino)));
    EXPECT_FALSE(note.has_value());
  }
  EXPECT_TRUE(waiting());
  consume();
  // Writing to the orphan tells subscribers nothing: it is in no view.
  ASSERT_OK(Edit([&](TreeEditor& ed) { return ed.Write(ino, 0, "changed"); }));
  EXPECT_FALSE(waiting());
  ASSERT_OK(Snap("s1").status());
  ASSIGN_OR_FAIL(auto snap, store().OpenSnapshot("s1"));
  ASSIGN_OR_FAIL(auto entries, snap->List(""));
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].name, "keep");
}

TEST_F(OrphanTest, OrphansSurviveReopenUntilPurged) {
  ASSERT_OK(Put("a", "1"));
  ASSERT_OK(Put("b", "2"));
  ASSERT_OK(Put("c", "3"));
  uint64_t a = Ino("a"), b = Ino("b");
  ASSERT_OK(Edit([](TreeEditor& ed) -> Status {
    VEXFS_RETURN_IF_ERROR(ed.Unlink(kRootIno, "a", LastLink::kKeepOrphan));
    return ed.Unlink(kRootIno, "b", LastLink::kKeepOrphan);
  }));
  Reopen();
  EXPECT_EQ(ReadIno(a), "1");
  EXPECT_TRUE(FsckClean(store()));
  uint64_t purged = 0;
  ASSERT_OK(Edit([&](TreeEditor& ed) -> Status {
    VEXFS_ASSIGN_OR_RETURN(purged, ed.PurgeOrphans());
    return Status::Ok();
  }));
  EXPECT_EQ(purged, 2u);
  EXPECT_TRUE(AttrOf(a).status().IsNotFound());
  EXPECT_TRUE(AttrOf(b).status().IsNotFound());
  EXPECT_EQ(Content("c"), "3");
  EXPECT_TRUE(FsckClean(store()));
}

TEST_F(OrphanTest, BranchCopyAndRestoreHandleOrphans) {
  ASSERT_OK(Put("a", "1"));
  ASSERT_OK(Snap("s1").status());
  uint64_t ino = Ino("a");
  ASSERT_OK(Edit([](TreeEditor& ed) { return ed.Unlink(kRootIno, "a", LastLink::kKeepOrphan); }));
  ASSERT_OK(store().CreateBranch("copy", std::nullopt));  // copies the orphan record too
  EXPECT_TRUE(FsckClean(store()));
  // A restore keeps the orphan: whoever holds it open can still use it, and
  // lets it go at its last close. The restored name is a new inode.
  ASSERT_OK(store().Restore("s1"));
  EXPECT_EQ(Content("a"), "1");
  EXPECT_NE(Ino("a"), ino);
  ASSIGN_OR_FAIL(Attributes orphan, AttrOf(ino));
  EXPECT_EQ(orphan.nlink, 0u);
  EXPECT_TRUE(FsckClean(store()));
  ASSERT_OK(Edit([&](TreeEditor& ed) { return ed.ReleaseOrphan(ino); }));
  EXPECT_TRUE(AttrOf(ino).status().IsNotFound());
  EXPECT_TRUE(FsckClean(store()));
}

TEST_F(OrphanTest, FsckFlagsAStrayOrphanRecord) {
  ASSERT_OK(Put("a", "1"));
  uint64_t ino = Ino("a");
  internal::Txn txn;
  ASSERT_OK(internal::ImplOf(&store())->BeginTxn(&txn, true));
  ASSERT_OK(txn.Put(internal::ImplOf(&store())->dbs().orphans, internal::InodeKey(1, ino), ""));
  ASSERT_OK(txn.Commit());
  ASSIGN_OR_FAIL(FsckReport report, store().Fsck());
  ASSERT_EQ(report.problems.size(), 1u);
  EXPECT_NE(report.problems[0].find("orphan record"), std::string::npos) << report.problems[0];
}

}  // namespace
}  // namespace vexfs
