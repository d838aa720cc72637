// What an extension reads through a StoreTxn (vexfs/extension.h) agrees with what
// the store's own views say: a working file's version is the id its snapshot
// stores, stored versions read back their bytes and xattrs, inodes, branches,
// snapshots and trees list what is there; and the transaction refuses what it
// must (an unbound tree read, a commit of a lent transaction, the store's own
// settings, use after it ended).
#include <algorithm>
#include <string>

#include "test_util.h"
#include "vexfs/extension.h"
#include "vexfs/store.h"

namespace vexfs {
namespace {

class StoreTxnTest : public test::StoreTest {};

TEST_F(StoreTxnTest, AWorkingFilesVersionIsTheIdItsSnapshotStores) {
  ASSERT_OK(Put("docs/plan.md", "sail at dawn"));
  ASSIGN_OR_FAIL(auto tree, store().Tree());
  ASSERT_OK(tree->Edit([](TreeEditor& ed) -> Status {
    VEXFS_ASSIGN_OR_RETURN(uint64_t ino, ed.ResolvePath("docs/plan.md"));
    return ed.SetXattr(ino, "user.topic", "boats");
  }));
  ASSIGN_OR_FAIL(CommitInfo snap, store().CreateSnapshot("s1", "", {}));

  StoreTxn txn;
  ASSERT_OK(txn.BeginOnBranch(&store(), false, ""));
  EXPECT_EQ(txn.branch_name(), "main");
  ASSIGN_OR_FAIL(uint64_t ino, txn.Resolve("docs/plan.md"));
  ASSIGN_OR_FAIL(ObjectId working, txn.FileVersion(ino));
  ASSIGN_OR_FAIL(std::string head, txn.ReadFile(ino, 0, 4));
  EXPECT_EQ(head, "sail");
  ASSIGN_OR_FAIL(std::string all, txn.ReadFile(ino, 5, 1000));
  EXPECT_EQ(all, "at dawn") << "a read past the end returns what there is";

  // The snapshot's tree names the same version, which reads back whole.
  ASSIGN_OR_FAIL(ObjectId commit, txn.ResolveCommit("s1"));
  EXPECT_EQ(commit, snap.id);
  ASSIGN_OR_FAIL(ObjectId root, txn.CommitTree(commit));
  ASSIGN_OR_FAIL(auto top, txn.ReadTree(root));
  ASSERT_EQ(top.size(), 1u);
  EXPECT_EQ(top[0].name, "docs");
  EXPECT_EQ(top[0].attr.type, FileType::kDirectory);
  ASSIGN_OR_FAIL(auto docs, txn.ReadTree(top[0].id));
  ASSERT_EQ(docs.size(), 1u);
  EXPECT_EQ(docs[0].id, working);
  EXPECT_EQ(docs[0].attr.size, 12u);
  ASSIGN_OR_FAIL(uint64_t size, txn.VersionSize(working));
  EXPECT_EQ(size, 12u);
  ASSIGN_OR_FAIL(std::string stored, txn.ReadVersion(working, 0, 100));
  EXPECT_EQ(stored, "sail at dawn");
  ASSIGN_OR_FAIL(XattrMap xattrs, txn.VersionXattrs(working));
  EXPECT_EQ(xattrs, (XattrMap{{"user.topic", "boats"}}));
  ASSIGN_OR_FAIL(XattrMap live, txn.InodeXattrs(txn.branch_id(), ino));
  EXPECT_EQ(live, xattrs);

  // Any change of content or xattrs is a new version.
  txn.Abort();
  ASSERT_OK(tree->Edit([&](TreeEditor& ed) { return ed.RemoveXattr(ino, "user.topic"); }));
  ASSERT_OK(txn.BeginOnBranch(&store(), false, ""));
  ASSIGN_OR_FAIL(ObjectId changed, txn.FileVersion(ino));
  EXPECT_NE(changed, working);
  EXPECT_CODE(txn.VersionSize(changed), StatusCode::kNotFound) << "not stored until a snapshot";
}

TEST_F(StoreTxnTest, InodesBranchesAndSnapshotsAreListed) {
  ASSERT_OK(Put("a.txt", "a"));
  ASSERT_OK(Put("dir/b.txt", "bb"));
  ASSERT_OK(store().CreateSnapshot("one", "", {}).status());
  ASSERT_OK(store().CreateBranch("empty_later", std::nullopt));
  ASSIGN_OR_FAIL(auto other, store().Tree("empty_later"));
  ASSERT_OK(other->Edit([](TreeEditor& ed) -> Status {
    VEXFS_RETURN_IF_ERROR(ed.Unlink(kRootIno, "a.txt"));
    VEXFS_ASSIGN_OR_RETURN(uint64_t dir, ed.ResolvePath("dir"));
    VEXFS_RETURN_IF_ERROR(ed.Unlink(dir, "b.txt"));
    return ed.Rmdir(kRootIno, "dir");
  }));

  StoreTxn txn;
  ASSERT_OK(txn.Begin(&store(), false));
  EXPECT_EQ(txn.branch_id(), 0u) << "an unbound transaction has no working tree";
  ASSIGN_OR_FAIL(std::vector<BranchRef> branches, txn.Branches());
  ASSERT_EQ(branches.size(), 2u);
  EXPECT_EQ(branches[0].name, "empty_later");
  EXPECT_EQ(branches[1].name, "main");
  ASSIGN_OR_FAIL(bool main_empty, txn.WorkingTreeIsEmpty(branches[1].id));
  ASSIGN_OR_FAIL(bool other_empty, txn.WorkingTreeIsEmpty(branches[0].id));
  EXPECT_FALSE(main_empty);
  EXPECT_TRUE(other_empty);
  ASSIGN_OR_FAIL(std::vector<ObjectId> commits, txn.SnapshotCommits());
  ASSERT_EQ(commits.size(), 1u);

  ASSIGN_OR_FAIL(std::vector<Attributes> inodes, txn.ListInodes(branches[1].id));
  ASSERT_EQ(inodes.size(), 4u);  // the root, a.txt, dir, dir/b.txt
  EXPECT_EQ(inodes[0].ino, kRootIno);
  auto regular = std::count_if(inodes.begin(), inodes.end(),
                               [](const Attributes& a) { return a.type == FileType::kRegular; });
  EXPECT_EQ(regular, 2);
  ASSIGN_OR_FAIL(auto found, txn.FindInode(branches[1].id, inodes[1].ino));
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->size, inodes[1].size);
  ASSIGN_OR_FAIL(auto missing, txn.FindInode(branches[1].id, 999999));
  EXPECT_FALSE(missing.has_value());
}

TEST_F(StoreTxnTest, TheTransactionRefusesWhatItMust) {
  ASSERT_OK(Put("a.txt", "a"));
  StoreTxn never_begun;
  EXPECT_CODE(never_begun.Get(Table(1), "k"), StatusCode::kInvalidArgument);
  EXPECT_FALSE(never_begun.active());

  StoreTxn txn;
  ASSERT_OK(txn.Begin(&store(), false));
  EXPECT_CODE(txn.Resolve("a.txt"), StatusCode::kInvalidArgument) << "not bound to a tree";
  EXPECT_CODE(txn.ReadLegacySetting("format"), StatusCode::kInvalidArgument);
  EXPECT_CODE(txn.ReadLegacySetting("table/x"), StatusCode::kInvalidArgument);
  ASSIGN_OR_FAIL(auto absent, txn.ReadLegacySetting("some_setting"));
  EXPECT_FALSE(absent.has_value());
  ASSERT_OK(txn.Commit());
  EXPECT_CODE(txn.Commit(), StatusCode::kInvalidArgument) << "committed already";

  // A transaction lent by an edit is committed by the edit, never by its borrower.
  ASSIGN_OR_FAIL(auto tables, RegisterTables(&store(), {{"lent_notes", TableScope::kGlobal}}));
  ASSIGN_OR_FAIL(auto tree, store().Tree());
  Status borrowed_commit;
  ASSERT_OK(tree->Edit([&](TreeEditor& ed) -> Status {
    StoreTxn lent = TransactionOf(ed);
    VEXFS_RETURN_IF_ERROR(lent.Put(tables[0], "k", "v"));
    borrowed_commit = lent.Commit();
    return Status::Ok();
  }));
  EXPECT_CODE(borrowed_commit, StatusCode::kInvalidArgument);
  ASSERT_OK(txn.Begin(&store(), false));
  ASSIGN_OR_FAIL(auto kept, txn.Get(tables[0], "k"));
  ASSERT_TRUE(kept.has_value()) << "the edit committed the borrower's write";
  EXPECT_EQ(*kept, "v");
}

}  // namespace
}  // namespace vexfs
