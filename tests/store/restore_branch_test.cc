// Tests for Restore and branches: restore reproduces a snapshot exactly without
// moving the branch head, keeping the inodes of entries that stay and changing
// only what differs; branches created from snapshots or from the working tree
// are independent; checkout and delete rules.
#include <gtest/gtest.h>

#include <map>
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

TEST_F(RestoreBranchTest, BranchFromAnotherBranchCopiesThatBranchNotTheCurrentOne) {
  ASSERT_OK(Put("f", "main's"));
  ASSERT_OK(store().CreateBranch("agent", std::nullopt));
  ASSIGN_OR_FAIL(auto agent, store().Tree("agent"));
  ASSERT_OK(test::PutFile(agent.get(), "f", "agent's, not snapshotted"));
  ASSERT_OK(test::PutFile(agent.get(), "only-agent", "a"));
  ASSIGN_OR_FAIL(CommitInfo a1, store().CreateSnapshot("a1", "", {}, "agent"));
  ASSERT_OK(test::PutFile(agent.get(), "after-a1", "b"));

  ASSERT_OK(store().CreateBranch("fork", std::nullopt, "agent"));
  ASSIGN_OR_FAIL(auto fork, store().Tree("fork"));
  EXPECT_EQ(Dump(fork.get()), Dump(agent.get()));
  EXPECT_EQ(Head("fork"), a1.id);  // its history goes on from agent's
  ASSIGN_OR_FAIL(std::string current, store().CurrentBranch());
  EXPECT_EQ(current, "main");
  EXPECT_EQ(Content("f"), "main's");
  EXPECT_CODE(store().CreateBranch("fork2", std::nullopt, "nope"), StatusCode::kNotFound);
  EXPECT_CODE(store().Tree("fork2"), StatusCode::kNotFound);
  // With a snapshot, the source branch plays no part: it may even be gone.
  ASSERT_OK(store().CreateBranch("from-a1", std::string("a1"), "no-such-branch"));
  ASSIGN_OR_FAIL(auto from_a1, store().Tree("from-a1"));
  ASSIGN_OR_FAIL(auto snap, store().OpenSnapshot("a1"));
  EXPECT_EQ(Dump(from_a1.get()), Dump(snap.get()));
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

TEST_F(RestoreBranchTest, RestoreKeepsTheInodesOfEntriesThatKeepTheirNameAndType) {
  TreeDump s1_dump = MakeTree();
  ASSERT_OK(Snap("s1"));
  Mutate();
  ASSERT_OK(Put("untouched", "same"));
  ASSERT_OK(Snap("s2"));
  ASSERT_OK(Put("untouched", "same"));  // rewritten alike: dirty, same bytes
  std::map<std::string, Attributes> before;
  for (const char* path : {"notes", "notes/today.md", "bin", "bin/blob", "latest", "untouched",
                           "added", "added/new.txt", "notes/empty-moved"}) {
    ASSIGN_OR_FAIL(before[path], tree().Stat(path));
  }
  ASSIGN_OR_FAIL(Attributes root_before, tree().Stat(""));
  ASSERT_OK(store().Restore("s2"));
  ASSERT_OK(store().Restore("s1"));
  TreeDump restored = Dump(&tree());
  EXPECT_EQ(restored, s1_dump);
  ASSIGN_OR_FAIL(auto diff, store().Diff("s1", kWorkingName));
  EXPECT_TRUE(diff.empty());
  // Same name and type: the same inode, whether its content changed (today.md,
  // blob, the link) or not (the directories).
  for (const char* path : {"notes", "notes/today.md", "bin", "bin/blob", "latest"}) {
    EXPECT_EQ(Ino(path), before[path].ino) << path;
  }
  EXPECT_EQ(Ino(""), root_before.ino);
  // Gone from the snapshot: gone; missing from the tree: new inodes.
  EXPECT_CODE(tree().Stat("added"), StatusCode::kNotFound);
  EXPECT_CODE(tree().Stat("notes/empty-moved"), StatusCode::kNotFound);
  EXPECT_CODE(tree().Stat("untouched"), StatusCode::kNotFound);
  for (const char* path : {"notes/old", "notes/old/2020.md", "emptydir", "empty"}) {
    EXPECT_GT(Ino(path), before["notes/empty-moved"].ino) << path;
  }
  ASSIGN_OR_FAIL(Attributes notes, tree().Stat("notes"));
  EXPECT_EQ(notes.nlink, 3u);  // notes/old is back
  ASSIGN_OR_FAIL(Attributes root, tree().Stat(""));
  EXPECT_EQ(root.nlink, 5u);  // notes, bin, emptydir
  EXPECT_TRUE(test::FsckClean(store()));
  // And the next snapshot is the same tree as s1.
  ASSIGN_OR_FAIL(CommitInfo s3, Snap("s3"));
  ASSIGN_OR_FAIL(auto same, store().Diff("s1", "s3"));
  EXPECT_TRUE(same.empty());
}

TEST_F(RestoreBranchTest, RestoreLeavesWhatDidNotChangeAlone) {
  ASSERT_OK(Put("keep/a", "a"));
  ASSERT_OK(Put("keep/deep/b", "b"));
  ASSERT_OK(Put("change", "1"));
  ASSERT_OK(Snap("s1"));
  ASSERT_OK(Put("change", "2"));
  ASSIGN_OR_FAIL(Attributes a, tree().Stat("keep/a"));
  ASSIGN_OR_FAIL(Attributes b, tree().Stat("keep/deep/b"));
  ASSIGN_OR_FAIL(Attributes keep, tree().Stat("keep"));
  ASSERT_OK(store().Restore("s1"));
  EXPECT_EQ(Content("change"), "1");
  // Not rewritten: their records, change times included, are as they were.
  for (auto [path, attr] : {std::pair<const char*, Attributes>{"keep/a", a},
                            {"keep/deep/b", b}, {"keep", keep}}) {
    ASSIGN_OR_FAIL(Attributes now, tree().Stat(path));
    EXPECT_EQ(now.ino, attr.ino) << path;
    EXPECT_EQ(now.ctime, attr.ctime) << path;
  }
  EXPECT_TRUE(test::FsckClean(store()));
}

TEST_F(RestoreBranchTest, RestoreBringsBackAttributesOfUnchangedContent) {
  ASSERT_OK(Put("f", "same bytes"));
  uint64_t f = Ino("f");
  auto set_mode = [&](uint32_t mode, TimeNs mtime) {
    return Edit([&](TreeEditor& ed) -> Status {
      TreeEditor::AttrChange change;
      change.mode = mode;
      change.mtime = mtime;
      return ed.SetAttr(f, change).status();
    });
  };
  ASSERT_OK(set_mode(0644, 1000));
  ASSERT_OK(Snap("s1"));
  // The same content with other attributes, snapshotted: f is clean again and
  // cached as the same manifest, yet s1's entry differs from it.
  ASSERT_OK(set_mode(0600, 2000));
  ASSERT_OK(Snap("s2"));
  ASSERT_OK(store().Restore("s1"));
  ASSIGN_OR_FAIL(Attributes attr, tree().Stat("f"));
  EXPECT_EQ(attr.ino, f);
  EXPECT_EQ(attr.mode, 0644u);
  EXPECT_EQ(attr.mtime, 1000);
  ASSIGN_OR_FAIL(auto diff, store().Diff("s1", kWorkingName));
  EXPECT_TRUE(diff.empty());
  EXPECT_TRUE(test::FsckClean(store()));
}

TEST_F(RestoreBranchTest, RestoreReplacesAnEntryThatChangedKind) {
  ASSERT_OK(Put("x", "a file"));
  ASSERT_OK(Put("y/inner", "in a directory"));
  ASSERT_OK(Snap("s1"));
  uint64_t x = Ino("x"), y = Ino("y");
  ASSERT_OK(Edit([&](TreeEditor& ed) -> Status {
    VEXFS_RETURN_IF_ERROR(ed.Unlink(kRootIno, "x"));
    VEXFS_RETURN_IF_ERROR(ed.Mkdir(kRootIno, "x", {}).status());
    VEXFS_RETURN_IF_ERROR(ed.Unlink(y, "inner"));
    VEXFS_RETURN_IF_ERROR(ed.Rmdir(kRootIno, "y"));
    return ed.Symlink(kRootIno, "y", "x", {}).status();
  }));
  ASSERT_OK(Put("x/child", "c"));
  ASSERT_OK(store().Restore("s1"));
  EXPECT_EQ(Content("x"), "a file");
  EXPECT_EQ(Content("y/inner"), "in a directory");
  EXPECT_NE(Ino("x"), x);
  EXPECT_NE(Ino("y"), y);
  ASSIGN_OR_FAIL(auto diff, store().Diff("s1", kWorkingName));
  EXPECT_TRUE(diff.empty());
  EXPECT_TRUE(test::FsckClean(store()));
}

TEST_F(RestoreBranchTest, RestoreSeparatesHardLinksThatTheSnapshotHoldsApart) {
  ASSERT_OK(Put("f", "one"));
  ASSERT_OK(Put("g", "two"));
  ASSERT_OK(Put("kept/h", "three"));
  ASSERT_OK(Snap("s1"));
  uint64_t f = Ino("f");
  ASSERT_OK(Edit([&](TreeEditor& ed) -> Status {
    VEXFS_RETURN_IF_ERROR(ed.Unlink(kRootIno, "g"));
    VEXFS_RETURN_IF_ERROR(ed.Link(f, kRootIno, "g").status());
    // A link the snapshot does not have, to a file whose content it does.
    VEXFS_RETURN_IF_ERROR(ed.Link(Ino("kept/h"), kRootIno, "h-link").status());
    return ed.Write(f, 0, "ONE");
  }));
  ASSERT_EQ(Content("g"), "ONE");
  ASSERT_OK(store().Restore("s1"));
  EXPECT_EQ(Content("f"), "one");
  EXPECT_EQ(Content("g"), "two");
  EXPECT_NE(Ino("f"), Ino("g"));
  EXPECT_CODE(tree().Stat("h-link"), StatusCode::kNotFound);
  ASSIGN_OR_FAIL(Attributes h, tree().Stat("kept/h"));
  EXPECT_EQ(h.nlink, 1u);
  // Independent again: a write to one leaves the other.
  ASSERT_OK(Put("f", "changed"));
  EXPECT_EQ(Content("g"), "two");
  ASSIGN_OR_FAIL(auto diff, store().Diff("s1", kWorkingName));
  EXPECT_EQ(diff.size(), 1u);
  EXPECT_TRUE(test::FsckClean(store()));
}

TEST_F(RestoreBranchTest, AHardLinkOfTheSameContentDoesNotTakeTheOthersAttributes) {
  // Two files with the same bytes (one manifest) and different attributes.
  ASSERT_OK(Put("a/f", "same"));
  ASSERT_OK(Put("b/g", "same"));
  auto set_mtime = [&](const char* path, TimeNs mtime) {
    uint64_t ino = Ino(path);
    return Edit([&](TreeEditor& ed) -> Status {
      TreeEditor::AttrChange change;
      change.mtime = mtime;
      return ed.SetAttr(ino, change).status();
    });
  };
  ASSERT_OK(set_mtime("a/f", 100));
  ASSERT_OK(set_mtime("b/g", 200));
  ASSERT_OK(Snap("s0"));
  // a/f becomes a link to b/g: only a is changed, b stays clean.
  uint64_t g = Ino("b/g"), a = Ino("a");
  ASSERT_OK(Edit([&](TreeEditor& ed) -> Status {
    VEXFS_RETURN_IF_ERROR(ed.Unlink(a, "f"));
    return ed.Link(g, a, "f").status();
  }));
  ASSERT_OK(store().Restore("s0"));
  ASSIGN_OR_FAIL(Attributes f_attr, tree().Stat("a/f"));
  ASSIGN_OR_FAIL(Attributes g_attr, tree().Stat("b/g"));
  EXPECT_EQ(f_attr.mtime, 100);
  EXPECT_EQ(g_attr.mtime, 200);
  EXPECT_NE(f_attr.ino, g_attr.ino);
  EXPECT_EQ(g_attr.nlink, 1u);
  ASSIGN_OR_FAIL(auto diff, store().Diff("s0", kWorkingName));
  EXPECT_TRUE(diff.empty());
  ASSERT_OK(Put("a/f", "apart"));
  EXPECT_EQ(Content("b/g"), "same");
  EXPECT_TRUE(test::FsckClean(store()));
}

}  // namespace
}  // namespace vexfs
