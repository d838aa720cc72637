// Tests for Restore and branches: restore reproduces a snapshot exactly without
// moving the branch head; branches created from snapshots or from the working
// tree are independent; checkout and delete rules.
#include <gtest/gtest.h>

#include <string>

#include "test_util.h"
#include "vexfs/store.h"

namespace vexfs {
namespace {

using test::StoreTest;
using test::TreeDump;

class RestoreBranchTest : public StoreTest {
 protected:
  // A small tree with every node type; returns its dump.
  TreeDump MakeTree() {
    EXPECT_OK(Put("notes/today.md", "# today\nplan"));
    EXPECT_OK(Put("notes/old/2020.md", "old"));
    EXPECT_OK(Put("bin/blob", test::RandomBytes(2, 200000)));
    EXPECT_OK(Put("empty", ""));
    EXPECT_OK(Edit([](TreeEditor& ed) -> Status {
      VEXFS_RETURN_IF_ERROR(ed.Symlink(kRootIno, "latest", "notes/today.md", {}).status());
      return ed.Mkdir(kRootIno, "emptydir", {}).status();
    }));
    return Dump(&tree());
  }
  // Changes every part of the tree made by MakeTree.
  void Mutate() {
    ASSERT_OK(Put("notes/today.md", "rewritten"));
    ASSERT_OK(Put("added/new.txt", "new"));
    uint64_t blob = Ino("bin/blob"), notes = Ino("notes"), old = Ino("notes/old");
    ASSERT_OK(Edit([&](TreeEditor& ed) -> Status {
      VEXFS_RETURN_IF_ERROR(ed.Write(blob, 100000, "patched"));
      VEXFS_RETURN_IF_ERROR(ed.Unlink(old, "2020.md"));
      VEXFS_RETURN_IF_ERROR(ed.Rmdir(notes, "old"));
      VEXFS_RETURN_IF_ERROR(ed.Unlink(kRootIno, "latest"));
      VEXFS_RETURN_IF_ERROR(ed.Symlink(kRootIno, "latest", "elsewhere", {}).status());
      VEXFS_RETURN_IF_ERROR(ed.Rmdir(kRootIno, "emptydir"));
      return ed.Rename(kRootIno, "empty", notes, "empty-moved");
    }));
  }
  TreeDump Dump(TreeView* view) {
    auto dump = test::DumpTree(view);
    EXPECT_TRUE(dump.ok()) << dump.status().ToString();
    return dump.ok() ? *dump : TreeDump{};
  }
  std::optional<ObjectId> Head(const std::string& branch) {
    auto branches = store().ListBranches();
    EXPECT_TRUE(branches.ok());
    for (const BranchInfo& b : *branches) {
      if (b.name == branch) return b.head;
    }
    ADD_FAILURE() << "no branch " << branch;
    return std::nullopt;
  }
};

TEST_F(RestoreBranchTest, RestoreBringsBackExactlyTheSnapshot) {
  TreeDump s1_dump = MakeTree();
  ASSERT_OK(Snap("s1"));
  Mutate();
  TreeDump s2_dump = Dump(&tree());
  ASSERT_NE(s2_dump, s1_dump);
  ASSIGN_OR_FAIL(CommitInfo s2, Snap("s2"));

  ASSERT_OK(store().Restore("s1"));
  EXPECT_EQ(Dump(&tree()), s1_dump);
  EXPECT_EQ(Head("main"), s2.id);  // the head did not move
  ASSIGN_OR_FAIL(auto diff, store().Diff("s1", kWorkingName));
  EXPECT_TRUE(diff.empty());
  // The next snapshot records the return as a change on top of s2.
  ASSIGN_OR_FAIL(CommitInfo s3, Snap("s3"));
  EXPECT_EQ(s3.parents, std::vector<ObjectId>{s2.id});
  ASSIGN_OR_FAIL(auto back, store().Diff("s2", "s3"));
  ASSIGN_OR_FAIL(auto forward, store().Diff("s1", "s2"));
  EXPECT_EQ(back.size(), forward.size());
  ASSIGN_OR_FAIL(auto s3_view, store().OpenSnapshot("s3"));
  EXPECT_EQ(Dump(s3_view.get()), s1_dump);
  EXPECT_TRUE(test::FsckClean(store()));
}

TEST_F(RestoreBranchTest, RestoredFilesCanBeEditedWithoutTouchingTheSnapshot) {
  TreeDump s1_dump = MakeTree();
  ASSERT_OK(Snap("s1"));
  ASSERT_OK(store().Restore("s1"));
  uint64_t blob = Ino("bin/blob");
  ASSERT_OK(Edit([&](TreeEditor& ed) -> Status {
    VEXFS_RETURN_IF_ERROR(ed.Write(blob, 5, "EDIT"));
    return ed.Truncate(blob, 70000);
  }));
  ASSERT_OK(Put("notes/today.md", "changed after restore"));
  ASSIGN_OR_FAIL(auto view, store().OpenSnapshot("s1"));
  EXPECT_EQ(Dump(view.get()), s1_dump);
  std::string blob_now = Content("bin/blob");
  ASSERT_EQ(blob_now.size(), 70000u);
  EXPECT_EQ(blob_now.substr(5, 4), "EDIT");
  std::string original = s1_dump["bin/blob"].substr(std::string("file:").size());
  EXPECT_EQ(blob_now.substr(9), original.substr(9, 70000 - 9));
}

TEST_F(RestoreBranchTest, RestoreKeepsXattrsAndModes) {
  ASSERT_OK(Put("d/f", "x"));
  uint64_t f = Ino("d/f"), d = Ino("d");
  ASSERT_OK(Edit([&](TreeEditor& ed) -> Status {
    VEXFS_RETURN_IF_ERROR(ed.SetXattr(f, "user.a", "1"));
    VEXFS_RETURN_IF_ERROR(ed.SetXattr(d, "user.d", "2"));
    TreeEditor::AttrChange change;
    change.mode = 0604;
    change.mtime = 777;
    return ed.SetAttr(f, change).status();
  }));
  ASSERT_OK(Snap("s1"));
  ASSERT_OK(Edit([&](TreeEditor& ed) -> Status {
    VEXFS_RETURN_IF_ERROR(ed.RemoveXattr(f, "user.a"));
    VEXFS_RETURN_IF_ERROR(ed.RemoveXattr(d, "user.d"));
    TreeEditor::AttrChange change;
    change.mode = 0777;
    return ed.SetAttr(f, change).status();
  }));
  ASSERT_OK(store().Restore("s1"));
  ASSIGN_OR_FAIL(XattrMap fx, tree().Xattrs("d/f"));
  EXPECT_EQ(fx, (XattrMap{{"user.a", "1"}}));
  ASSIGN_OR_FAIL(XattrMap dx, tree().Xattrs("d"));
  EXPECT_EQ(dx, (XattrMap{{"user.d", "2"}}));
  ASSIGN_OR_FAIL(Attributes a, tree().Stat("d/f"));
  EXPECT_EQ(a.mode, 0604u);
  EXPECT_EQ(a.mtime, 777);
  ASSIGN_OR_FAIL(Attributes dir, tree().Stat("d"));
  EXPECT_EQ(dir.nlink, 2u);
}

TEST_F(RestoreBranchTest, RestoreOfUnknownSnapshotChangesNothing) {
  TreeDump dump = MakeTree();
  EXPECT_CODE(store().Restore("missing"), StatusCode::kNotFound);
  EXPECT_EQ(Dump(&tree()), dump);
}

TEST_F(RestoreBranchTest, RestoreEmptySnapshotEmptiesTree) {
  ASSERT_OK(Snap("empty"));
  MakeTree();
  ASSERT_OK(store().Restore("empty"));
  ASSIGN_OR_FAIL(auto entries, tree().List(""));
  EXPECT_TRUE(entries.empty());
  EXPECT_TRUE(test::FsckClean(store()));
}

TEST_F(RestoreBranchTest, BranchFromSnapshot) {
  TreeDump s1_dump = MakeTree();
  ASSIGN_OR_FAIL(CommitInfo s1, Snap("s1"));
  Mutate();
  ASSERT_OK(store().CreateBranch("dev", "s1"));
  ASSIGN_OR_FAIL(auto dev, store().Tree("dev"));
  EXPECT_EQ(Dump(dev.get()), s1_dump);
  EXPECT_EQ(Head("dev"), s1.id);
  ASSIGN_OR_FAIL(std::string current, store().CurrentBranch());
  EXPECT_EQ(current, "main");
  ASSIGN_OR_FAIL(auto branches, store().ListBranches());
  ASSERT_EQ(branches.size(), 2u);
  EXPECT_EQ(branches[0].name, "dev");
  EXPECT_FALSE(branches[0].current);
  EXPECT_EQ(branches[1].name, "main");
  EXPECT_TRUE(branches[1].current);
  // Snapshots on dev continue its own history.
  ASSERT_OK(test::PutFile(dev.get(), "dev-only", "d"));
  ASSIGN_OR_FAIL(CommitInfo d1, store().CreateSnapshot("d1", "", {}, "dev"));
  EXPECT_EQ(d1.parents, std::vector<ObjectId>{s1.id});
  EXPECT_CODE(store().CreateBranch("bad", "missing"), StatusCode::kNotFound);
  EXPECT_CODE(store().Tree("bad"), StatusCode::kNotFound);
}

TEST_F(RestoreBranchTest, BranchFromWorkingTreeCopiesUncommittedChanges) {
  MakeTree();
  ASSIGN_OR_FAIL(CommitInfo s1, Snap("s1"));
  Mutate();  // not snapshotted
  TreeDump working = Dump(&tree());
  ASSERT_OK(store().CreateBranch("copy", std::nullopt));
  ASSIGN_OR_FAIL(auto copy, store().Tree("copy"));
  EXPECT_EQ(Dump(copy.get()), working);
  EXPECT_EQ(Head("copy"), s1.id);

  // Independent from here on, in both directions.
  ASSERT_OK(Put("main-only", "m"));
  ASSERT_OK(test::PutFile(copy.get(), "copy-only", "c"));
  ASSERT_OK(test::PutFile(copy.get(), "notes/today.md", "copy's version"));
  EXPECT_CODE(copy->Stat("main-only"), StatusCode::kNotFound);
  EXPECT_CODE(tree().Stat("copy-only"), StatusCode::kNotFound);
  EXPECT_EQ(Content("notes/today.md"), "rewritten");
  ASSIGN_OR_FAIL(std::string theirs, copy->ReadAll("notes/today.md"));
  EXPECT_EQ(theirs, "copy's version");
  // Snapshots of the copy see its dirty state correctly.
  ASSERT_OK(store().CreateSnapshot("c1", "", {}, "copy"));
  ASSIGN_OR_FAIL(auto c1, store().OpenSnapshot("c1"));
  EXPECT_EQ(Dump(c1.get()), Dump(copy.get()));
  EXPECT_TRUE(test::FsckClean(store()));
}

TEST_F(RestoreBranchTest, CheckoutSwitchesTheCurrentTree) {
  ASSERT_OK(Put("f", "main"));
  ASSERT_OK(store().CreateBranch("dev", std::nullopt));
  ASSERT_OK(store().Checkout("dev"));
  ASSIGN_OR_FAIL(std::string current, store().CurrentBranch());
  EXPECT_EQ(current, "dev");
  ASSIGN_OR_FAIL(auto cur, store().Tree());
  EXPECT_EQ(cur->branch(), "dev");
  ASSERT_OK(test::PutFile(cur.get(), "f", "dev"));
  ASSIGN_OR_FAIL(CommitInfo d, Snap("on-dev"));
  EXPECT_EQ(d.branch, "dev");
  EXPECT_EQ(Head("dev"), d.id);
  EXPECT_EQ(Head("main"), std::nullopt);
  // WORKING in a diff means the current branch's tree.
  ASSIGN_OR_FAIL(auto diff, store().Diff("on-dev", kWorkingName));
  EXPECT_TRUE(diff.empty());
  EXPECT_EQ(Content("f"), "main");  // tree() still names main
  EXPECT_CODE(store().Checkout("nope"), StatusCode::kNotFound);
  ASSIGN_OR_FAIL(std::string still, store().CurrentBranch());
  EXPECT_EQ(still, "dev");
}

TEST_F(RestoreBranchTest, DeleteBranch) {
  ASSERT_OK(Put("f", "x"));
  ASSERT_OK(store().CreateBranch("tmp", std::nullopt));
  EXPECT_CODE(store().DeleteBranch("main"), StatusCode::kInvalidArgument);
  EXPECT_CODE(store().DeleteBranch("nope"), StatusCode::kNotFound);
  ASSERT_OK(store().DeleteBranch("tmp"));
  EXPECT_CODE(store().Tree("tmp"), StatusCode::kNotFound);
  ASSIGN_OR_FAIL(auto branches, store().ListBranches());
  ASSERT_EQ(branches.size(), 1u);
  EXPECT_EQ(branches[0].name, "main");
  EXPECT_EQ(Content("f"), "x");
  // The name can be used again, with a fresh tree.
  ASSERT_OK(store().CreateBranch("tmp", std::nullopt));
  EXPECT_TRUE(test::FsckClean(store()));
}

TEST_F(RestoreBranchTest, BranchNameRules) {
  for (std::string bad : {"", "a/b", "..", ".x", "WORKING", "with space"}) {
    EXPECT_CODE(store().CreateBranch(bad, std::nullopt), StatusCode::kInvalidArgument) << bad;
  }
  EXPECT_CODE(store().CreateBranch("main", std::nullopt), StatusCode::kAlreadyExists);
  ASSERT_OK(store().CreateBranch("ok-1.2_x", std::nullopt));
  EXPECT_CODE(store().CreateBranch("ok-1.2_x", std::nullopt), StatusCode::kAlreadyExists);
}

TEST_F(RestoreBranchTest, RestoreIntoNamedBranch) {
  TreeDump s1_dump = MakeTree();
  ASSERT_OK(Snap("s1"));
  ASSERT_OK(store().CreateBranch("other", std::nullopt));
  ASSIGN_OR_FAIL(auto other, store().Tree("other"));
  ASSERT_OK(test::PutFile(other.get(), "junk", "j"));
  ASSERT_OK(Put("main-change", "m"));
  ASSERT_OK(store().Restore("s1", "other"));
  EXPECT_EQ(Dump(other.get()), s1_dump);
  EXPECT_EQ(Content("main-change"), "m");  // main untouched
}

}  // namespace
}  // namespace vexfs
