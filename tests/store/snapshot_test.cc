// Tests for snapshots: naming rules, reading a snapshot in place while the
// working tree moves on, history (Log), metadata, tags, resolving by id, and dirty
// tracking (a snapshot writes objects only for what changed, yet misses nothing).
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "test_util.h"
#include "vexfs/store.h"

namespace vexfs {
namespace {

using test::StoreTest;

class SnapshotTest : public StoreTest {
 protected:
  uint64_t ObjectCount() {
    auto stats = store().Stats();
    EXPECT_TRUE(stats.ok()) << stats.status().ToString();
    return stats.ok() ? stats->objects : 0;
  }
};

TEST_F(SnapshotTest, ReadsInPlaceWhileWorkingTreeChanges) {
  const std::string big = test::RandomBytes(1, 3 * 64 * 1024 + 123);
  ASSERT_OK(Put("docs/big.bin", big));
  ASSERT_OK(Put("docs/note.txt", "remember this"));
  ASSERT_OK(Put("top.txt", "top"));
  uint64_t note = Ino("docs/note.txt"), docs = Ino("docs");
  ASSERT_OK(Edit([&](TreeEditor& ed) -> Status {
    VEXFS_RETURN_IF_ERROR(ed.Symlink(kRootIno, "link", "docs/note.txt", {}).status());
    VEXFS_RETURN_IF_ERROR(ed.SetXattr(note, "user.tag", "important"));
    VEXFS_RETURN_IF_ERROR(ed.SetXattr(docs, "user.kind", "folder"));
    TreeEditor::AttrChange change;
    change.mode = 0600;
    return ed.SetAttr(note, change).status();
  }));
  ASSIGN_OR_FAIL(CommitInfo s1, store().CreateSnapshot("s1", "first", {{"k", "v"}}));
  EXPECT_EQ(s1.names, std::vector<std::string>{"s1"});
  EXPECT_EQ(s1.message, "first");

  // Move the working tree on.
  ASSERT_OK(Put("docs/note.txt", "forgotten"));
  ASSERT_OK(Edit([&](TreeEditor& ed) -> Status {
    VEXFS_RETURN_IF_ERROR(ed.Unlink(kRootIno, "top.txt"));
    VEXFS_RETURN_IF_ERROR(ed.RemoveXattr(docs, "user.kind"));
    return ed.Rename(kRootIno, "docs", kRootIno, "moved");
  }));

  ASSIGN_OR_FAIL(auto view, store().OpenSnapshot("s1"));
  EXPECT_EQ(view->commit(), s1.id);
  ASSIGN_OR_FAIL(auto root, view->List(""));
  ASSERT_EQ(root.size(), 3u);
  EXPECT_EQ(root[0].name, "docs");
  EXPECT_EQ(root[0].attr.type, FileType::kDirectory);
  EXPECT_EQ(root[1].name, "link");
  EXPECT_EQ(root[1].attr.type, FileType::kSymlink);
  EXPECT_EQ(root[2].name, "top.txt");
  ASSIGN_OR_FAIL(Attributes st, view->Stat("docs/note.txt"));
  EXPECT_EQ(st.size, 13u);
  EXPECT_EQ(st.mode, 0600u);
  EXPECT_EQ(st.ino, 0u);  // snapshots have no inodes
  ASSIGN_OR_FAIL(std::string text, view->ReadAll("docs/note.txt"));
  EXPECT_EQ(text, "remember this");
  ASSIGN_OR_FAIL(std::string range, view->Read("docs/big.bin", 64 * 1024 - 7, 20));
  EXPECT_EQ(range, big.substr(64 * 1024 - 7, 20));
  ASSIGN_OR_FAIL(std::string past_end, view->Read("docs/big.bin", big.size() - 3, 100));
  EXPECT_EQ(past_end, big.substr(big.size() - 3));
  ASSIGN_OR_FAIL(std::string nothing, view->Read("docs/big.bin", big.size() + 10, 100));
  EXPECT_EQ(nothing, "");
  ASSIGN_OR_FAIL(std::string target, view->ReadLink("link"));
  EXPECT_EQ(target, "docs/note.txt");
  ASSIGN_OR_FAIL(XattrMap fx, view->Xattrs("docs/note.txt"));
  EXPECT_EQ(fx, (XattrMap{{"user.tag", "important"}}));
  ASSIGN_OR_FAIL(XattrMap dx, view->Xattrs("docs"));
  EXPECT_EQ(dx, (XattrMap{{"user.kind", "folder"}}));
  ASSIGN_OR_FAIL(std::string top, view->ReadAll("top.txt"));
  EXPECT_EQ(top, "top");

  EXPECT_CODE(view->Stat("moved"), StatusCode::kNotFound);
  EXPECT_CODE(view->Stat("top.txt/x"), StatusCode::kNotDirectory);
  EXPECT_CODE(view->List("top.txt"), StatusCode::kNotDirectory);
  EXPECT_CODE(view->Read("docs", 0, 1), StatusCode::kIsDirectory);
  EXPECT_CODE(view->ReadLink("top.txt"), StatusCode::kInvalidArgument);
  EXPECT_CODE(view->Stat("../x"), StatusCode::kInvalidArgument);
  EXPECT_EQ(Content("moved/note.txt"), "forgotten");
}

TEST_F(SnapshotTest, DuplicateNameRefused) {
  ASSERT_OK(Snap("s"));
  ASSERT_OK(Put("f", "x"));
  EXPECT_CODE(Snap("s"), StatusCode::kAlreadyExists);
  ASSIGN_OR_FAIL(auto all, store().ListSnapshots());
  EXPECT_EQ(all.size(), 1u);
}

TEST_F(SnapshotTest, InvalidNamesRefused) {
  for (std::string bad : {"a/b", "..", "", "WORKING", ".hidden", "-x", "sp ace"}) {
    EXPECT_CODE(Snap(bad), StatusCode::kInvalidArgument) << bad;
  }
  EXPECT_CODE(Snap(std::string(256, 'n')), StatusCode::kNameTooLong);
  ASSIGN_OR_FAIL(auto all, store().ListSnapshots());
  EXPECT_TRUE(all.empty());
  ASSIGN_OR_FAIL(auto log, store().Log());
  EXPECT_TRUE(log.empty());
}

TEST_F(SnapshotTest, LogIsNewestFirstWithParents) {
  ASSERT_OK(Put("f", "1"));
  ASSIGN_OR_FAIL(CommitInfo s1, Snap("s1"));
  ASSERT_OK(Put("f", "2"));
  ASSIGN_OR_FAIL(CommitInfo s2, Snap("s2"));
  ASSERT_OK(Put("f", "3"));
  ASSIGN_OR_FAIL(CommitInfo s3, Snap("s3"));
  EXPECT_TRUE(s1.parents.empty());
  EXPECT_EQ(s2.parents, std::vector<ObjectId>{s1.id});
  EXPECT_EQ(s3.parents, std::vector<ObjectId>{s2.id});

  ASSIGN_OR_FAIL(auto log, store().Log());
  ASSERT_EQ(log.size(), 3u);
  EXPECT_EQ(log[0].id, s3.id);
  EXPECT_EQ(log[1].id, s2.id);
  EXPECT_EQ(log[2].id, s1.id);
  EXPECT_EQ(log[1].names, std::vector<std::string>{"s2"});
  EXPECT_EQ(log[0].branch, "main");
  EXPECT_GE(log[0].time, log[2].time);

  ASSIGN_OR_FAIL(auto limited, store().Log("", 2));
  ASSERT_EQ(limited.size(), 2u);
  EXPECT_EQ(limited[1].id, s2.id);
  ASSIGN_OR_FAIL(auto from_s2, store().Log("s2"));
  ASSERT_EQ(from_s2.size(), 2u);
  EXPECT_EQ(from_s2[0].id, s2.id);
  ASSIGN_OR_FAIL(auto by_branch, store().Log("main"));
  EXPECT_EQ(by_branch.size(), 3u);
  EXPECT_CODE(store().Log("nothing-here"), StatusCode::kNotFound);

  ASSIGN_OR_FAIL(auto listed, store().ListSnapshots());
  ASSERT_EQ(listed.size(), 3u);
  EXPECT_EQ(listed[0].id, s1.id);  // oldest first
  EXPECT_EQ(listed[2].id, s3.id);
}

TEST_F(SnapshotTest, MessageAndMetadata) {
  std::map<std::string, std::string> meta = {{"agent", "planner"}, {"step", "42"},
                                             {"empty", ""}};
  ASSERT_OK(store().CreateSnapshot("m", "a message\nwith lines", meta));
  ASSIGN_OR_FAIL(CommitInfo info, store().ResolveSnapshot("m"));
  EXPECT_EQ(info.message, "a message\nwith lines");
  EXPECT_EQ(info.meta, meta);
  EXPECT_CODE(store().CreateSnapshot("bad1", "", {{"a=b", "v"}}), StatusCode::kInvalidArgument);
  EXPECT_CODE(store().CreateSnapshot("bad2", "", {{"", "v"}}), StatusCode::kInvalidArgument);
  EXPECT_CODE(store().CreateSnapshot("bad3", "", {{"k", std::string(4097, 'v')}}),
              StatusCode::kInvalidArgument);
  EXPECT_CODE(store().ResolveSnapshot("bad1"), StatusCode::kNotFound);
}

TEST_F(SnapshotTest, TagAndDeleteNames) {
  ASSIGN_OR_FAIL(CommitInfo s1, Snap("s1"));
  ASSERT_OK(store().TagSnapshot("release", "s1"));
  ASSIGN_OR_FAIL(CommitInfo tagged, store().ResolveSnapshot("release"));
  EXPECT_EQ(tagged.id, s1.id);
  EXPECT_EQ(tagged.names, (std::vector<std::string>{"release", "s1"}));
  ASSIGN_OR_FAIL(auto listed, store().ListSnapshots());
  EXPECT_EQ(listed.size(), 1u);  // one commit, two names

  EXPECT_CODE(store().TagSnapshot("release", "s1"), StatusCode::kAlreadyExists);
  EXPECT_CODE(store().TagSnapshot("other", "missing"), StatusCode::kNotFound);
  EXPECT_CODE(store().TagSnapshot("a/b", "s1"), StatusCode::kInvalidArgument);
  ASSERT_OK(store().TagSnapshot("by-id", s1.id.ToHex()));

  ASSERT_OK(store().DeleteSnapshotName("s1"));
  EXPECT_CODE(store().ResolveSnapshot("s1"), StatusCode::kNotFound);
  EXPECT_CODE(store().DeleteSnapshotName("s1"), StatusCode::kNotFound);
  ASSIGN_OR_FAIL(CommitInfo still, store().ResolveSnapshot("release"));
  EXPECT_EQ(still.id, s1.id);
  // A name can be reused once deleted.
  ASSERT_OK(Put("f", "x"));
  ASSIGN_OR_FAIL(CommitInfo again, Snap("s1"));
  EXPECT_NE(again.id, s1.id);
}

TEST_F(SnapshotTest, CommitWithoutNamesStaysInHistory) {
  ASSIGN_OR_FAIL(CommitInfo s1, Snap("s1"));
  ASSERT_OK(Put("f", "x"));
  ASSERT_OK(Snap("s2"));
  ASSERT_OK(store().DeleteSnapshotName("s1"));
  ASSIGN_OR_FAIL(auto log, store().Log());
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[1].id, s1.id);
  EXPECT_TRUE(log[1].names.empty());
  ASSIGN_OR_FAIL(auto view, store().OpenSnapshot(s1.id.ToHex()));
  ASSIGN_OR_FAIL(auto entries, view->List(""));
  EXPECT_TRUE(entries.empty());
}

TEST_F(SnapshotTest, ResolveByFullId) {
  ASSERT_OK(Put("f", "content"));
  ASSIGN_OR_FAIL(CommitInfo s1, Snap("s1"));
  ASSIGN_OR_FAIL(CommitInfo by_id, store().ResolveSnapshot(s1.id.ToHex()));
  EXPECT_EQ(by_id.id, s1.id);
  EXPECT_EQ(by_id.names, std::vector<std::string>{"s1"});
  ASSIGN_OR_FAIL(auto view, store().OpenSnapshot(s1.id.ToHex()));
  ASSIGN_OR_FAIL(std::string f, view->ReadAll("f"));
  EXPECT_EQ(f, "content");
  EXPECT_CODE(store().ResolveSnapshot(std::string(64, '0')), StatusCode::kNotFound);
  EXPECT_CODE(store().ResolveSnapshot(s1.id.ToHex().substr(0, 63)), StatusCode::kNotFound);
  EXPECT_CODE(store().ResolveSnapshot(""), StatusCode::kInvalidArgument);
  // The id of an object that is not a commit names no snapshot.
  EXPECT_CODE(store().ResolveSnapshot(s1.tree.ToHex()), StatusCode::kNotFound);
  EXPECT_CODE(store().OpenSnapshot("nope"), StatusCode::kNotFound);
}

TEST_F(SnapshotTest, SnapshotOfAnotherBranch) {
  ASSERT_OK(Put("f", "main"));
  ASSERT_OK(store().CreateBranch("dev", std::nullopt));
  ASSIGN_OR_FAIL(auto dev, store().Tree("dev"));
  ASSERT_OK(test::PutFile(dev.get(), "f", "dev"));
  ASSIGN_OR_FAIL(CommitInfo d1, store().CreateSnapshot("d1", "", {}, "dev"));
  EXPECT_EQ(d1.branch, "dev");
  ASSIGN_OR_FAIL(auto view, store().OpenSnapshot("d1"));
  ASSIGN_OR_FAIL(std::string f, view->ReadAll("f"));
  EXPECT_EQ(f, "dev");
  ASSIGN_OR_FAIL(auto main_log, store().Log("main"));
  EXPECT_TRUE(main_log.empty());
  ASSIGN_OR_FAIL(auto dev_log, store().Log("dev"));
  ASSERT_EQ(dev_log.size(), 1u);
  EXPECT_CODE(store().CreateSnapshot("x", "", {}, "no-such-branch"), StatusCode::kNotFound);
}

TEST_F(SnapshotTest, EmptyStoreSnapshot) {
  ASSIGN_OR_FAIL(CommitInfo s, Snap("empty"));
  ASSIGN_OR_FAIL(auto view, store().OpenSnapshot("empty"));
  ASSIGN_OR_FAIL(auto entries, view->List("/"));
  EXPECT_TRUE(entries.empty());
  ASSIGN_OR_FAIL(Attributes root, view->Stat(""));
  EXPECT_EQ(root.type, FileType::kDirectory);
  EXPECT_FALSE(s.tree.IsZero());
}

// ~2000 files in 48 directories, three levels deep.
class DirtyTrackingTest : public SnapshotTest {
 protected:
  static std::string PathOf(int top, int sub, int file) {
    return "t" + std::to_string(top) + "/s" + std::to_string(sub) + "/f" +
           std::to_string(file) + ".txt";
  }
  void SetUp() override {
    SnapshotTest::SetUp();
    for (int top = 0; top < 8; ++top) {
      ASSERT_OK(Edit([&](TreeEditor& ed) -> Status {
        for (int sub = 0; sub < 5; ++sub) {
          for (int file = 0; file < 50; ++file) {
            std::string path = PathOf(top, sub, file);
            VEXFS_RETURN_IF_ERROR(ed.PutFile(path, "content of " + path, {}).status());
          }
        }
        return Status::Ok();
      }));
    }
    ASSERT_OK(Snap("base"));
  }
};

TEST_F(DirtyTrackingTest, OneChangedFileWritesOnlyItsPath) {
  ASSIGN_OR_FAIL(StoreStats before, store().Stats());
  ASSERT_OK(Put(PathOf(3, 2, 17), "changed content"));
  ASSERT_OK(Snap("after"));
  ASSIGN_OR_FAIL(StoreStats after, store().Stats());
  // One chunk, one manifest, three trees (s2, t3, root) and the commit.
  const uint64_t depth = 3;
  EXPECT_LE(after.objects - before.objects, depth + 3);
  EXPECT_LT(after.object_bytes - before.object_bytes, 32u * 1024);
  ASSIGN_OR_FAIL(auto diff, store().Diff("base", "after"));
  ASSERT_EQ(diff.size(), 1u);
  EXPECT_EQ(diff[0].kind, DiffEntry::Kind::kModified);
  EXPECT_EQ(diff[0].path, PathOf(3, 2, 17));
  ASSIGN_OR_FAIL(auto view, store().OpenSnapshot("after"));
  ASSIGN_OR_FAIL(std::string changed, view->ReadAll(PathOf(3, 2, 17)));
  EXPECT_EQ(changed, "changed content");
  ASSIGN_OR_FAIL(std::string other, view->ReadAll(PathOf(3, 2, 18)));
  EXPECT_EQ(other, "content of " + PathOf(3, 2, 18));
}

TEST_F(DirtyTrackingTest, UnchangedTreeAddsOnlyACommit) {
  uint64_t before = ObjectCount();
  ASSIGN_OR_FAIL(CommitInfo again, Snap("again"));
  EXPECT_LE(ObjectCount() - before, 1u);
  ASSIGN_OR_FAIL(CommitInfo base, store().ResolveSnapshot("base"));
  EXPECT_EQ(again.tree, base.tree);
  // atime is not part of a snapshot, so touching it changes nothing either.
  uint64_t f = Ino(PathOf(0, 0, 0));
  ASSERT_OK(Edit([&](TreeEditor& ed) {
    TreeEditor::AttrChange change;
    change.atime = 12345;
    return ed.SetAttr(f, change).status();
  }));
  ASSIGN_OR_FAIL(CommitInfo third, Snap("third"));
  EXPECT_EQ(third.tree, base.tree);
}

TEST_F(DirtyTrackingTest, EveryKindOfChangeReachesTheNextSnapshot) {
  uint64_t f1 = Ino(PathOf(1, 1, 1)), f2 = Ino(PathOf(2, 2, 2)), s4 = Ino("t4/s4");
  uint64_t t5s0 = Ino("t5/s0"), t6s1 = Ino("t6/s1");
  ASSERT_OK(Edit([&](TreeEditor& ed) -> Status {
    VEXFS_RETURN_IF_ERROR(ed.SetXattr(f1, "user.x", "1"));
    TreeEditor::AttrChange change;
    change.mode = 0600;
    VEXFS_RETURN_IF_ERROR(ed.SetAttr(f2, change).status());
    VEXFS_RETURN_IF_ERROR(ed.SetXattr(s4, "user.dir", "d"));
    VEXFS_RETURN_IF_ERROR(ed.Rename(t5s0, "f0.txt", t6s1, "moved.txt"));
    return ed.Unlink(t5s0, "f1.txt");
  }));
  ASSERT_OK(Snap("next"));
  ASSIGN_OR_FAIL(auto view, store().OpenSnapshot("next"));
  ASSIGN_OR_FAIL(XattrMap x1, view->Xattrs(PathOf(1, 1, 1)));
  EXPECT_EQ(x1, (XattrMap{{"user.x", "1"}}));
  ASSIGN_OR_FAIL(Attributes a2, view->Stat(PathOf(2, 2, 2)));
  EXPECT_EQ(a2.mode, 0600u);
  ASSIGN_OR_FAIL(XattrMap xd, view->Xattrs("t4/s4"));
  EXPECT_EQ(xd, (XattrMap{{"user.dir", "d"}}));
  ASSIGN_OR_FAIL(std::string moved, view->ReadAll("t6/s1/moved.txt"));
  EXPECT_EQ(moved, "content of " + PathOf(5, 0, 0));
  EXPECT_CODE(view->Stat(PathOf(5, 0, 0)), StatusCode::kNotFound);
  EXPECT_CODE(view->Stat(PathOf(5, 0, 1)), StatusCode::kNotFound);
  ASSIGN_OR_FAIL(auto diff, store().Diff("base", "next"));
  EXPECT_EQ(diff.size(), 4u);  // xattr, mode, rename, removal (dir xattrs are not diffed)
}

// Each operation, alone after a snapshot left every directory clean, must dirty
// the path to the root so the next snapshot records it.
TEST_F(DirtyTrackingTest, EachOperationAloneReachesTheNextSnapshot) {
  struct Op {
    const char* what;
    std::function<Status(TreeEditor&)> apply;
    std::function<void(SnapshotView&)> check;
  };
  const std::string f3 = PathOf(3, 3, 3);
  std::vector<Op> ops = {
      {"unlink",
       [](TreeEditor& ed) -> Status {
         VEXFS_ASSIGN_OR_RETURN(uint64_t dir, ed.ResolvePath("t1/s1"));
         return ed.Unlink(dir, "f5.txt");
       },
       [](SnapshotView& v) { EXPECT_CODE(v.Stat("t1/s1/f5.txt"), StatusCode::kNotFound); }},
      {"mkdir",
       [](TreeEditor& ed) -> Status {
         VEXFS_ASSIGN_OR_RETURN(uint64_t dir, ed.ResolvePath("t2/s2"));
         return ed.Mkdir(dir, "newdir", {}).status();
       },
       [](SnapshotView& v) { EXPECT_OK(v.Stat("t2/s2/newdir")); }},
      {"rmdir",
       [](TreeEditor& ed) -> Status {
         VEXFS_ASSIGN_OR_RETURN(uint64_t dir, ed.ResolvePath("t2/s2"));
         return ed.Rmdir(dir, "newdir");
       },
       [](SnapshotView& v) { EXPECT_CODE(v.Stat("t2/s2/newdir"), StatusCode::kNotFound); }},
      {"symlink",
       [](TreeEditor& ed) -> Status {
         VEXFS_ASSIGN_OR_RETURN(uint64_t dir, ed.ResolvePath("t4/s0"));
         return ed.Symlink(dir, "ln", "somewhere", {}).status();
       },
       [](SnapshotView& v) {
         ASSIGN_OR_FAIL(std::string target, v.ReadLink("t4/s0/ln"));
         EXPECT_EQ(target, "somewhere");
       }},
      {"link",
       [f3](TreeEditor& ed) -> Status {
         VEXFS_ASSIGN_OR_RETURN(uint64_t file, ed.ResolvePath(f3));
         VEXFS_ASSIGN_OR_RETURN(uint64_t dir, ed.ResolvePath("t6/s2"));
         return ed.Link(file, dir, "hard").status();
       },
       [f3](SnapshotView& v) {
         ASSIGN_OR_FAIL(std::string data, v.ReadAll("t6/s2/hard"));
         EXPECT_EQ(data, "content of " + f3);
       }},
      {"rename within a directory",
       [](TreeEditor& ed) -> Status {
         VEXFS_ASSIGN_OR_RETURN(uint64_t dir, ed.ResolvePath("t7/s3"));
         return ed.Rename(dir, "f9.txt", dir, "renamed.txt");
       },
       [](SnapshotView& v) { EXPECT_OK(v.Stat("t7/s3/renamed.txt")); }},
      {"truncate",
       [](TreeEditor& ed) -> Status {
         VEXFS_ASSIGN_OR_RETURN(uint64_t file, ed.ResolvePath("t0/s4/f4.txt"));
         return ed.Truncate(file, 3);
       },
       [](SnapshotView& v) {
         ASSIGN_OR_FAIL(std::string data, v.ReadAll("t0/s4/f4.txt"));
         EXPECT_EQ(data, "con");
       }},
      {"directory mode",
       [](TreeEditor& ed) -> Status {
         VEXFS_ASSIGN_OR_RETURN(uint64_t dir, ed.ResolvePath("t5/s1"));
         TreeEditor::AttrChange change;
         change.mode = 0700;
         return ed.SetAttr(dir, change).status();
       },
       [](SnapshotView& v) {
         ASSIGN_OR_FAIL(Attributes a, v.Stat("t5/s1"));
         EXPECT_EQ(a.mode, 0700u);
       }},
  };
  int n = 0;
  for (const Op& op : ops) {
    SCOPED_TRACE(op.what);
    ASSERT_OK(Edit(op.apply));
    std::string name = "op" + std::to_string(n++);
    ASSERT_OK(Snap(name));
    ASSIGN_OR_FAIL(auto view, store().OpenSnapshot(name));
    op.check(*view);
  }
}

// A write found by inode must dirty every directory that links the file.
TEST_F(DirtyTrackingTest, WriteThroughHardLinkDirtiesAllParents) {
  uint64_t f = Ino(PathOf(0, 0, 0)), other = Ino("t7/s4");
  ASSERT_OK(Edit([&](TreeEditor& ed) { return ed.Link(f, other, "link.txt").status(); }));
  ASSERT_OK(Snap("linked"));
  ASSERT_OK(Edit([&](TreeEditor& ed) { return ed.Write(f, 0, "NEW"); }));
  ASSERT_OK(Snap("written"));
  ASSIGN_OR_FAIL(auto view, store().OpenSnapshot("written"));
  std::string want = "NEW" + ("content of " + PathOf(0, 0, 0)).substr(3);
  ASSIGN_OR_FAIL(std::string a, view->ReadAll(PathOf(0, 0, 0)));
  ASSIGN_OR_FAIL(std::string b, view->ReadAll("t7/s4/link.txt"));
  EXPECT_EQ(a, want);
  EXPECT_EQ(b, want);
  ASSIGN_OR_FAIL(auto diff, store().Diff("linked", "written"));
  EXPECT_EQ(diff.size(), 2u);
}

TEST_F(DirtyTrackingTest, SnapshotAfterRestoreIsCheapAndCorrect) {
  ASSERT_OK(Put(PathOf(4, 4, 4), "temporary"));
  ASSERT_OK(Snap("temp"));
  ASSERT_OK(store().Restore("base"));
  uint64_t before = ObjectCount();
  ASSIGN_OR_FAIL(CommitInfo back, Snap("back"));
  ASSIGN_OR_FAIL(CommitInfo base, store().ResolveSnapshot("base"));
  EXPECT_EQ(back.tree, base.tree);
  EXPECT_LE(ObjectCount() - before, 1u);
}

}  // namespace
}  // namespace vexfs
